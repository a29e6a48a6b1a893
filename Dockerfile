# Production image of the wpreport service (used by docker-compose.yml).
#
# No Docker daemon runs where this project is developed: test/platform/docker-image.test.ts
# rebuilds this image's file set from the COPY lines below (and .dockerignore) in a temporary
# folder, runs the RUN commands there, then starts the CMD, checks it with the HEALTHCHECK,
# analyzes a site with it, and runs docker-compose.yml's API and worker roles from it. Every
# file the server needs at run time must come through a COPY line here (and be let through by
# .dockerignore), or that test fails.

# Dependencies: exactly the lockfile (`npm ci`, as CI installs), without dev dependencies.
# package.json lists an npm workspace (test/api/openapi-client, the typed-client check);
# npm ci does not need its folder, and the image does not ship it.
FROM node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Fixes to dependencies (patches/, applied by patch-package): the server refuses to start on
# an unpatched postgres.js. Install scripts of dependencies are not run, so patch-package is
# run by hand after the install (it is a runtime dependency for this reason).
COPY patches ./patches
# The runtime image has Bun already, so the npm copy of it (a runtime dependency for
# `npm start` elsewhere) is dropped. /app/data is the embedded database's folder (DATA_DIR),
# made here so that the runtime stage can hand it to the unprivileged user.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npx --no-install patch-package \
  && rm -rf node_modules/bun node_modules/@oven node_modules/.bin/bun node_modules/.bin/bunx \
  && mkdir -p data

FROM oven/bun:1.4-slim@sha256:cb3bbbb08e13a4a2ff400f24c7a2a1d5efa83f6ef8544d52d95a519631e2fc61
WORKDIR /app
ENV NODE_ENV=production PORT=3000
COPY --from=deps /app/node_modules ./node_modules
# tsconfig.json is read at run time: it tells Bun that the web pages' JSX is Preact's
# (without it Bun looks for react/jsx-runtime and the server does not start).
COPY package.json tsconfig.json ./
COPY server ./server
COPY shared ./shared
COPY --from=deps --chown=bun:bun /app/data ./data
USER bun
# Without DATABASE_URL the service keeps its embedded database here: mount a volume to keep it.
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD ["bun", "-e", "const r = await fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz'); process.exit(r.ok ? 0 : 1)"]
CMD ["bun", "server/start/main.ts"]
