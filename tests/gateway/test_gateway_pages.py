"""The pages the gateway serves: /docs (Swagger UI), /redoc and the web client at
/play load everything from the gateway itself: every script, style sheet and icon they
name is a local path that the gateway serves, and their security policy keeps the
browser from fetching anything elsewhere. (The browser tests open them in Chromium.)"""

from __future__ import annotations

import re

import pytest
from patience_gateway.http.pages import WEB_FILES

from tests.gateway.helpers import Gateway

REFERENCE = re.compile(r"""(?:src|href|spec-url)\s*=\s*["']([^"']+)["']""")


async def assert_local(gateway: Gateway, page: str, html: str) -> list[str]:
    """Every reference of `html` is a path on the gateway, and served."""
    references = [r for r in REFERENCE.findall(html) if r != "data:,"]
    for reference in references:
        assert not re.match(r"^[a-z]+:|^//", reference), reference
        path = reference if reference.startswith("/") else page.rsplit("/", 1)[0] + "/" + reference
        asset = await gateway.http.get(path)
        assert asset.status_code == 200, reference
        assert len(asset.content) > 100, reference
    return references


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
    # ReDoc's bundle would show its maker's logo from a CDN: images come from here only.
    assert response.headers["content-security-policy"] == "img-src 'self' data:"
    html = response.text
    assert "://" not in html.replace("window.location.origin", "")
    references = await assert_local(gateway, page, html)
    assert {reference.rsplit("/", 1)[-1] for reference in references} >= needs
    spec = await gateway.http.get("/openapi.json")
    assert spec.status_code == 200 and spec.json()["paths"]
    assert "content-security-policy" not in spec.headers


async def test_the_web_client_is_served_from_the_package_with_a_strict_policy(
    gateway: Gateway,
) -> None:
    moved = await gateway.http.get("/play")
    assert moved.status_code == 307 and moved.headers["location"].endswith("/play/")
    page = await gateway.http.get("/play/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    for directive in ("default-src 'self'", "script-src 'self'", "connect-src 'self'"):
        assert directive in policy
    assert "unsafe" not in policy
    assert page.headers["referrer-policy"] == "no-referrer"
    references = await assert_local(gateway, "/play/", page.text)
    assert {"play.js", "play.css"} <= set(references)
    for name in sorted(path.name for path in WEB_FILES.iterdir()):
        script = await gateway.http.get(f"/play/{name}")
        assert script.status_code == 200, name
        assert script.headers["content-security-policy"] == policy
        imported = re.findall(r'from "\./([\w.]+)"', script.text)
        assert all((WEB_FILES / module).is_file() for module in imported), imported
    missing = await gateway.http.get("/play/nothing-here.js")
    assert missing.status_code == 404
