FROM node:22-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
ENV PORT=8080
EXPOSE 8080
# AsyncLocalStorage on async context frames (Node 24's default), as `npm start` runs it.
CMD ["node", "--experimental-async-context-frame", "dist/src/main.js"]
