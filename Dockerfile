FROM node:22-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
ENV PORT=8080
# The same runtime flag npm scripts get from .npmrc.
ENV NODE_OPTIONS=--experimental-async-context-frame
EXPOSE 8080
CMD ["node", "dist/src/main.js"]
