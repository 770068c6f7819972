# The locker agent (docs/agent.md), for controllers that run containers. Build from the repository root:
#   docker build -f deploy/docker/agent.Dockerfile -t locker-agent .
# Run it next to the hardware (the screen and the serial devices are local to the controller):
#   docker run -d --name locker-agent --restart unless-stopped --network host \
#     --device /dev/serial/by-id/usb-FTDI_RS485-if00-port0 --device /dev/serial/by-id/usb-Honeywell_Scanner-if00 \
#     -v /etc/locker-agent:/etc/locker-agent:ro -v locker-agent-data:/var/lib/locker-agent locker-agent
# Most controllers run it under systemd instead: deploy/systemd/locker-agent.service.

# --- build: the agent bundled into one module (npm run build:agent: dist/agent/main.js and its page)
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/hw-protocol/package.json ./packages/hw-protocol/
# Only the bundler is needed here; the native modules stay out of the bundle.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY scripts/build-agent.ts ./scripts/
COPY packages/hw-protocol ./packages/hw-protocol
COPY shared/src ./shared/src
COPY agent/src ./agent/src
RUN npm run build:agent

# --- dependencies: production packages, native modules (better-sqlite3, serialport) built or downloaded here
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

# --- runtime, as the unprivileged node user in the dialout group (serial ports)
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    AGENT_CONFIG=/etc/locker-agent/agent.json \
    AGENT_DB_PATH=/var/lib/locker-agent/agent.sqlite
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --from=build --chown=root:root /app/dist/agent ./dist/agent
RUN usermod -aG dialout node \
 && mkdir -p /etc/locker-agent /var/lib/locker-agent && chown node:node /var/lib/locker-agent
VOLUME ["/var/lib/locker-agent"]
USER node
EXPOSE 8080
# SIGTERM: the agent says offline on the link, finishes the operation under way and closes its store.
STOPSIGNAL SIGTERM
# The bundle: no TypeScript compiled at start (docs/agent.md, "The built agent"); the heap sized
# for a controller as in deploy/systemd/locker-agent.service (docs/agent.md, "Memory").
CMD ["node", "--max-semi-space-size=1", "--max-old-space-size=128", "dist/agent/main.js"]
