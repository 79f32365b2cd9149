// A stand-in for @jupyterlab/console, shared under that name by this federated
// extension at version 0.0.0 (see ../README.md).
//
// jupyterlab-rise's slideshow app (a JupyterLab remix) does not share @jupyterlab/console,
// but ipywidgets' JupyterLab extension (@jupyter-widgets/jupyterlab-manager 5.x) imports
// it: without a provider its plugin fails to load in the slideshow, and every widget
// shows as its text repr (jupyterlab-contrib/rise#119). The widget manager uses the
// module for two things only: the IConsoleTracker token, an *optional* dependency of its
// plugin (no plugin of the slideshow provides it, so the manager gets null), and an
// `instanceof ConsolePanel` test on panels that are not notebooks. These stand-ins are
// enough for both. Any real JupyterLab (or Notebook 7) shares the real module at a
// version above 0.0.0, and a singleton resolves to the highest version: there this file
// is never loaded.
import { Token } from '@lumino/coreutils';

export const IConsoleTracker = new Token(
  '@jupyterlab/console:IConsoleTracker',
  'A stand-in token (kmlteach-rise-shim): the RISE slideshow has no code consoles.'
);

/** Never instantiated: only `instanceof` tests meet it, and they are false. */
export class ConsolePanel {}

/** Never instantiated (a type in the widget manager's sources). */
export class CodeConsole {}
