"""The live web table: Host and players around one fight (HTTP + Server-Sent Events, thin).

``create_app(store_url)`` builds the FastAPI application; ``tableside serve`` runs it. The
layering is web → service/store → encounter → rules.
"""

from tableside.web.app import create_app

__all__ = ["create_app"]
