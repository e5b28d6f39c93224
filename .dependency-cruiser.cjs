/**
 * The layers of src/ and the boundaries between src/, sources/, toolsets/ and cli/, kept by
 * dependency-cruiser (`npm run lint:deps`). docs/architecture.md explains each layer.
 *
 * LAYERS states each src/ folder's layer once: a module may import its own folder and folders of
 * a LOWER layer only (never the same layer's other folders, never a higher one). "(root)" is the
 * leaf files directly in src/ (types and helpers that import nothing but each other).
 */
const LAYERS = {
  '(root)': 0,
  records: 1,
  redis: 2,
  'outbound-http': 2,
  'intake-policy': 2,
  render: 2,
  redaction: 2,
  observability: 2,
  registration: 3,
  runbooks: 3,
  config: 4,
  store: 5,
  memory: 5,
  tools: 5,
  llm: 5,
  prompts: 5,
  context: 6,
  recall: 6,
  quality: 6,
  remediation: 6,
  loop: 7,
  investigation: 8,
  budget: 8,
  queue: 9,
  actions: 10,
  checks: 10,
  exporter: 10,
  dashboard: 11,
  polling: 11,
  delivery: 11,
  http: 12,
  app: 13,
};

/** Folders that every source (or toolset) may share; any other cross-folder import is forbidden. */
const SHARED_SOURCE_FOLDERS = ['common', 'ops-alerts-common'];
const SHARED_TOOLSET_FOLDERS = [];
/** Folders src/ must never import: the vendor-specific edges of the tree. */
const OUTSIDE_THE_ENGINE = ['sources', 'toolsets', 'cli', 'destinations'];

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const folderPath = (folder) => (folder === '(root)' ? '^src/[^/]+$' : `^src/${esc(folder)}/`);
const anyOf = (folders) => folders.map(folderPath).join('|');

/** For each folder: it may not import a folder of its own layer or above, other than itself. */
const layerRules = Object.entries(LAYERS)
  .map(([folder, layer]) => {
    const notBelow = Object.keys(LAYERS).filter((f) => f !== folder && LAYERS[f] >= layer);
    return {
      name: `layer-${layer}-${folder.replace(/[()]/g, '')}`,
      comment: `src/${folder === '(root)' ? '*.ts' : folder} (layer ${layer}) may import only folders of a lower layer`,
      severity: 'error',
      from: { path: folderPath(folder) },
      to: { path: anyOf(notBelow) },
    };
  })
  .filter((rule) => rule.to.path !== '');

/** A sibling of a group of folders (sources/*, toolsets/*), other than the shared ones. */
function noCrossImports(root, shared) {
  const sharedAlt = shared.length ? `(?!(${shared.map(esc).join('|')})/)` : '';
  return {
    name: `no-cross-${root}`,
    comment: `a folder of ${root}/ may import another only through a shared folder (${shared.join(', ') || 'none yet'})`,
    severity: 'error',
    from: { path: `^${root}/([^/]+)/` },
    to: { path: `^${root}/${sharedAlt}`, pathNot: `^${root}/$1/` },
  };
}

/** The engine's folders at or above a layer: what the edges (sources/, toolsets/) may not reach into. */
const atOrAbove = (layer) => Object.keys(LAYERS).filter((f) => LAYERS[f] >= layer);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no cycle between files (and so none between folders), type-only imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-imports-no-edge',
      comment: `src/ imports nothing from ${OUTSIDE_THE_ENGINE.join(', ')}: they build on the engine, not it on them`,
      severity: 'error',
      from: { path: '^src/' },
      to: { path: `^(${OUTSIDE_THE_ENGINE.join('|')})/` },
    },
    {
      name: 'src-folder-has-a-layer',
      comment: 'every folder of src/ is given a layer in LAYERS (.dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/[^/]+/', pathNot: anyOf(Object.keys(LAYERS)) },
    },
    {
      name: 'src-folder-has-a-layer-too',
      comment: 'every folder of src/ is given a layer in LAYERS (.dependency-cruiser.cjs), importers too',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: anyOf(Object.keys(LAYERS)) },
      to: {},
    },
    noCrossImports('sources', SHARED_SOURCE_FOLDERS),
    noCrossImports('toolsets', SHARED_TOOLSET_FOLDERS),
    {
      name: 'no-cross-destinations',
      comment:
        'a folder of destinations/ never imports another destination (only the shared files directly in destinations/)',
      severity: 'error',
      from: { path: '^destinations/([^/]+)/' },
      to: { path: '^destinations/[^/]+/', pathNot: '^destinations/$1/' },
    },
    {
      name: 'edges-stay-low',
      comment: `sources/ and toolsets/ build on the engine's lower layers (registration, render, outbound-http, tools, config, root types), never on what runs them (${atOrAbove(9).join(', ')})`,
      severity: 'error',
      from: { path: '^(sources|toolsets)/' },
      to: { path: anyOf(atOrAbove(9)) },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    exclude: { path: '^(node_modules|tests|bench|reports)/' },
  },
};
