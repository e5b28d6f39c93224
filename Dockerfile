# Build stage: compile the TypeScript to dist/ (the development dependencies stay here).
FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY cli ./cli
COPY src ./src
COPY sources ./sources
COPY destinations ./destinations
COPY toolsets ./toolsets
COPY templates ./templates
RUN npm run build

# Runtime: production dependencies and compiled JavaScript only.
FROM node:26-bookworm-slim
WORKDIR /app
# kubectl is optional: mount one (and a kubeconfig) to enable the kubernetes toolset.
# bubblewrap: the bash toolset runs each command in a bwrap sandbox (docs/bash-toolset.md); the
# container then needs user namespaces allowed, or toolsets.bash.sandbox: none. socat carries a
# sandbox's connections to Lestrade's egress proxy, its only way out to the network.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap socat && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY bin ./bin
ENV NODE_ENV=production PORT=8080
EXPOSE 8080
USER node
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve"]
