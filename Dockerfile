# syntax=docker/dockerfile:1
# FoodSave API. Build: docker build -t foodsave-api .
# Run: docker run --env-file .env -p 3000:3000 -v foodsave-data:/data foodsave-api
# (or docker compose up, with PostgreSQL and Redis: see docker-compose.yml).

ARG NODE_VERSION=24.21

# --- build: every dependency, then the TypeScript compiled to dist/ and the console to console/dist --
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY bench ./bench
COPY clients ./clients
COPY console ./console
RUN npm run build

# --- production dependencies only (no esbuild, tsx, TypeScript, test tools) ----------------------
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The operators' console, built: served at /console, nothing of Vite at run time (CONSOLE_DIR's default).
COPY --from=build /app/console/dist ./console/dist
COPY package.json LICENSE ./
# The embedded database (when DATABASE_URL is unset) and uploaded files live in /data.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
# The slim image has no curl: node asks the liveness route itself.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/v1/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1: SIGTERM from `docker stop` reaches the server, which finishes in-flight requests
# (up to 25 s) and exits. No npm in between, and no rebuild at start.
CMD ["node", "--enable-source-maps", "--max-semi-space-size=4", "--heap-growing-percent=100", "dist/src/server.js"]
