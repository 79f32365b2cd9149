// Builds a JupyterLab federated extension that provides one shared module and no plugin.
// `npm ci && npm run build` writes dist/ (package.json + static/remoteEntry.<hash>.js),
// which pyproject.toml installs into share/jupyter/labextensions/kmlteach-rise-shim/.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { ModuleFederationPlugin } = require('webpack').container;

const pkg = require('./package.json');
const dist = path.resolve(__dirname, 'dist');

// The files this build is made from; tests/test_rise_shim.py hashes them the same way and
// fails when dist/ was not rebuilt after a change.
const SOURCES = ['package.json', 'webpack.config.js', 'src/console.js', 'src/index.js'];

function sourceSha256() {
  const h = crypto.createHash('sha256');
  for (const f of SOURCES) {
    h.update(f + '\0');
    h.update(fs.readFileSync(path.join(__dirname, f)));
    h.update('\0');
  }
  return h.digest('hex');
}

// jupyterlab_server lists a federated extension from its package.json: `jupyterlab._build.load`
// names the container; no `extension` key, because there is no plugin to activate.
class WritePackageJson {
  apply(compiler) {
    compiler.hooks.done.tap('WritePackageJson', stats => {
      const entry = Object.keys(stats.compilation.assets).find(f => f.startsWith('remoteEntry.'));
      const out = {
        name: pkg.name,
        version: pkg.version,
        description: pkg.description,
        license: pkg.license,
        jupyterlab: { _build: { load: `static/${entry}` } },
        kmlteach: { sources: SOURCES, sourceSha256: sourceSha256() }
      };
      fs.writeFileSync(path.join(dist, 'package.json'), JSON.stringify(out, null, 2) + '\n');
    });
  }
}

module.exports = {
  mode: 'production',
  entry: {},
  devtool: false,
  output: {
    path: path.join(dist, 'static'),
    publicPath: 'auto',
    filename: '[name].[contenthash].js',
    chunkFilename: '[name].[contenthash].js',
    clean: true
  },
  optimization: { chunkIds: 'deterministic', moduleIds: 'deterministic' },
  plugins: [
    new ModuleFederationPlugin({
      name: pkg.name,
      library: { type: 'var', name: ['_JUPYTERLAB', pkg.name] },
      filename: 'remoteEntry.[contenthash].js',
      exposes: { './index': './src/index.js' },
      shared: {
        '@jupyterlab/console': {
          import: './src/console.js',
          shareKey: '@jupyterlab/console',
          version: '0.0.0',
          requiredVersion: false,
          singleton: true
        },
        // the host's Lumino, never bundled: the token must be a real Lumino Token
        '@lumino/coreutils': { import: false, requiredVersion: '^2.0.0', singleton: true }
      }
    }),
    new WritePackageJson()
  ]
};
