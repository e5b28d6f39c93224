FROM node:20-bookworm-slim
WORKDIR /app
# kubectl is optional: mount one (and a kubeconfig) to enable the kubernetes toolset.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY cli ./cli
COPY src ./src
COPY sources ./sources
COPY toolsets ./toolsets
COPY templates ./templates
COPY tsconfig.json ./
ENV NODE_ENV=production PORT=8080
EXPOSE 8080
USER node
ENTRYPOINT ["node", "bin/lestrade.js"]
CMD ["serve"]
