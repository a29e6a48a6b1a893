# Production image of the wpreport service (used by docker-compose.yml).
FROM oven/bun:1.4-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Fixes to dependencies (package.json `patchedDependencies`): bun install applies them itself,
# scripts or not, and the server refuses to start on an unpatched postgres.js.
COPY patches ./patches
# Bun reads package-lock.json; dev dependencies (tests, build tools) are left out. The image has
# Bun already, so the npm copy of it (a runtime dependency for `npm start` elsewhere) is dropped.
RUN bun install --production --ignore-scripts && rm -rf node_modules/bun node_modules/@oven

FROM oven/bun:1.4-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY server ./server
COPY shared ./shared
USER bun
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD ["bun", "-e", "const r = await fetch('http://127.0.0.1:3000/readyz'); process.exit(r.ok ? 0 : 1)"]
CMD ["bun", "server/main.ts"]
