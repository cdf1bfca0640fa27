// The esbuild options of the bundles the extension ships (its client and the language server), shared
// by scripts/build.mjs and the blueprint benchmark, which times a cold validation built the same way.

/** @type {import('esbuild').BuildOptions} */
export const bundleOptions = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // The Node.js of VS Code 1.82 (Electron 25).
  target: 'node18',
  // Identifiers stay: the server logs stack traces, and their function names should say something.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};
