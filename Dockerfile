# syntax=docker/dockerfile:1
# Three stages: compile with every dependency, install the production dependencies alone, and a runtime image of
# those plus the compiled output, run as the image's unprivileged `node` user.

FROM node:22-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY schema ./schema
COPY resolvers ./resolvers
COPY src ./src
COPY bench ./bench
RUN npm run build

FROM node:22-slim AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:22-slim
ENV NODE_ENV=production PORT=8080 METRICS_PORT=9464
WORKDIR /app
# Owned by root and read-only to the service: it writes nothing into its own code.
COPY package.json ./
COPY schema ./schema
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8080 9464
STOPSIGNAL SIGTERM
# AsyncLocalStorage on async context frames (Node 24's default), as `npm start` runs it. The tracing hooks load
# first (`--import`) and stay idle unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
CMD ["node", "--experimental-async-context-frame", "--import", "./dist/src/platform/observability/tracing.js", "dist/src/main.js"]
