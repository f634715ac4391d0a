"""/docs (Swagger UI) and /redoc load everything from the gateway itself: every
script, style sheet and icon they name is a local path that the gateway serves.
(The browser tests open both pages in Chromium with every other site unreachable.)"""

from __future__ import annotations

import re

import pytest

from tests.gateway.helpers import Gateway

REFERENCE = re.compile(r"""(?:src|href|spec-url)\s*=\s*["']([^"']+)["']""")


@pytest.mark.parametrize(
    ("page", "needs"),
    [("/docs", {"swagger-ui-bundle.js", "swagger-ui.css"}), ("/redoc", {"redoc.standalone.js"})],
)
async def test_documentation_pages_load_nothing_from_elsewhere(
    gateway: Gateway, page: str, needs: set[str]
) -> None:
    response = await gateway.http.get(page)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    assert "://" not in html.replace("window.location.origin", "")
    references = REFERENCE.findall(html)
    assert {reference.rsplit("/", 1)[-1] for reference in references} >= needs
    for reference in references:
        assert reference.startswith("/") and not reference.startswith("//"), reference
        asset = await gateway.http.get(reference)
        assert asset.status_code == 200, reference
        assert len(asset.content) > 1000, reference
    spec = await gateway.http.get("/openapi.json")
    assert spec.status_code == 200 and spec.json()["paths"]
