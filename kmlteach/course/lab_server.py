"""The course's JupyterLab server setting: kernel messages leave without Nagle's delay.

jupyter_server relays a kernel's messages to the browser over one websocket per
notebook and leaves Nagle's algorithm on for it (tornado's default: a small write waits
while an earlier one is unacknowledged). The browser acknowledges late (Linux delays
ACKs up to 40 ms), so a widget update, which is a burst of small messages (busy, echo,
the figure, the readout, idle), regularly stalled: on a 2-core machine the figure of the
PR explorer (chapter 07), sent by the kernel 27 ms after a click, reached the page 26 ms
later, and 6 ms later with the delay off (input → figure on screen 81 → 72 ms).

This module is a Jupyter server extension: ``pip install -e .`` installs
``jupyter/server_config/kmlteach.json`` into ``<prefix>/etc/jupyter/jupyter_server_config.d/``,
which enables it, and on load it makes :class:`NoDelayKernelWebsocketConnection` the
server's kernel websocket connection (only in place of jupyter_server's default: a class
someone configured is left alone). ``make lab``, Binder and the browser tests all run
with it. (A ``config.d`` file can only enable extensions; ``jupyter_server_config.d`` JSON
that sets other ``ServerApp`` traits is ignored.)
"""

from __future__ import annotations

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

__all__ = ["NoDelayKernelWebsocketConnection"]

KEY = "kernel_websocket_connection_class"


class NoDelayKernelWebsocketConnection(ZMQChannelsWebsocketConnection):
    """jupyter_server's kernel websocket connection with ``TCP_NODELAY`` set on connect."""

    def connect(self):
        self.websocket_handler.set_nodelay(True)
        return super().connect()


def _jupyter_server_extension_points() -> list[dict]:
    return [{"module": "kmlteach.course.lab_server"}]


def _load_jupyter_server_extension(serverapp) -> None:
    """Replace the default kernel websocket connection class in the running server's
    settings (its handlers read it on every connection)."""
    settings = serverapp.web_app.settings
    if settings.get(KEY) in (None, ZMQChannelsWebsocketConnection):
        settings[KEY] = NoDelayKernelWebsocketConnection
        serverapp.log.info("kmlteach: kernel websockets send without Nagle's delay (TCP_NODELAY)")
