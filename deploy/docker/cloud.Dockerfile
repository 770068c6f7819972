# The cloud service (docs/operations.md). Build from the repository root:
#   docker build -f deploy/docker/cloud.Dockerfile -t locker-cloud .
# TypeScript runs through tsx (a runtime dependency), so there is no compile step.

# --- dependencies: production packages, native modules (better-sqlite3) built or downloaded here
FROM node:20-bookworm-slim AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# The workspace package's manifest, so npm ci links it (its sources come with the runtime stage).
COPY packages/hw-protocol/package.json ./packages/hw-protocol/
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# --- runtime: node_modules and the sources the cloud needs, as the unprivileged node user
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SQLITE_PATH=/var/lib/locker-cloud/cloud.sqlite
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json tsconfig.json ./
COPY --chown=root:root packages/hw-protocol ./packages/hw-protocol
COPY --chown=root:root shared/src ./shared/src
COPY --chown=root:root cloud/src ./cloud/src
# The fleet file and the marketplaces' CA files are mounted here; SQLite (without DATABASE_URL) lives in the volume.
RUN mkdir -p /etc/locker-cloud /var/lib/locker-cloud && chown node:node /var/lib/locker-cloud
VOLUME ["/var/lib/locker-cloud"]
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# One node process, so SIGTERM (docker stop) and SIGHUP (fleet reload) reach the cloud itself.
CMD ["node", "--import", "tsx", "cloud/src/main.ts"]
