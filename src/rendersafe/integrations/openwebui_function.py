"""
title: rendersafe
author: rendersafe developers
description: Sanitises each reply before the browser renders it: no image or link leaks the chat.
version: 0.1.0
license: MIT
requirements: rendersafe
"""

# The file Open WebUI imports on its Functions page (Admin Panel -> Functions -> Import,
# or paste it as a new function): Open WebUI installs the `requirements` above and
# takes the `Filter` class from here. It is `rendersafe.integrations.openwebui.Filter`.
from rendersafe.integrations.openwebui import Filter

__all__ = ["Filter"]
