# Production image: compiled JavaScript (API, workers, CLI, token and backup scripts), the
# dashboard's build, production dependencies only (no tsx, no TypeScript), git for the local provider.
# Node 24: the Active LTS line (Node 20 left maintenance in April 2026); package.json states the
# supported range and CI tests 20, 22 and 24.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY workers ./workers
COPY shared ./shared
COPY cli ./cli
COPY openapi ./openapi
COPY scripts ./scripts
COPY web ./web
RUN npm run build

FROM node:24-bookworm-slim
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends git ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The dashboard's static build, served by the API from / (docs/dashboard.md).
COPY --from=build /app/web/dist ./web/dist
# The v2 API's contract: its router reads every operation from it at start (docs/api-v2.md).
COPY --from=build /app/openapi/v2/contract.json ./openapi/v2/contract.json
USER node
ENV HOST=0.0.0.0 PORT=8080 DATA_DIR=/data LOCAL_GIT_ROOT=/data/git
EXPOSE 8080 9464
# The compose file chooses the entry point: dist/api/server.js or dist/workers/main.js; the CLI is
# `node dist/cli/main.js`.
CMD ["node", "dist/api/server.js"]
