// The container's only exposed module: no plugin. A webpack container needs one, and the
// work happens when JupyterLab (or RISE) initialises the container: it adds this
// extension's shared modules (src/console.js) to the page's share scope.
export default [];
