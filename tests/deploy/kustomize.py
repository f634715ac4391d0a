"""Renders the kustomizations of deploy/kubernetes in Python, offline: the subset of
kustomize they use (resources, namespace, labels, images, strategic-merge patches), so
that the tests check what `kubectl kustomize` would give without a kustomize binary."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

Doc = dict[str, Any]

CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume"}
KNOWN_FIELDS = {"apiVersion", "kind", "namespace", "labels", "resources", "images", "patches"}


def render(folder: Path) -> list[Doc]:
    config = yaml.safe_load((folder / "kustomization.yaml").read_text())
    unknown = set(config) - KNOWN_FIELDS
    assert not unknown, f"{folder}: kustomize fields this renderer does not know: {unknown}"
    docs: list[Doc] = []
    for resource in config.get("resources", []):
        path = folder / resource
        if path.is_dir():
            docs.extend(render(path))
        else:
            docs.extend(doc for doc in yaml.safe_load_all(path.read_text()) if doc)
    for patch in config.get("patches", []):
        for change in yaml.safe_load_all((folder / patch["path"]).read_text()):
            target = find(docs, change["kind"], change["metadata"]["name"])
            merge(target, change)
    for label in config.get("labels", []):
        for doc in docs:
            doc.setdefault("metadata", {}).setdefault("labels", {}).update(label["pairs"])
    if "namespace" in config:
        for doc in docs:
            if doc["kind"] not in CLUSTER_SCOPED:
                doc["metadata"]["namespace"] = config["namespace"]
    for image in config.get("images", []):
        for container in all_containers(docs):
            name, tag = split_image(container["image"])
            if name == image["name"]:
                container["image"] = f"{image.get('newName', name)}:{image.get('newTag', tag)}"
    return docs


def split_image(image: str) -> tuple[str, str]:
    """An image's name and tag ("" when untagged; a registry's port is no tag)."""
    if ":" in image.rsplit("/", 1)[-1]:
        name, _, tag = image.rpartition(":")
        return name, tag
    return image, ""


def find(docs: list[Doc], kind: str, name: str) -> Doc:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} resources"
    return found[0]


def merge(target: Any, change: Any) -> None:
    """Strategic merge, as kustomize does it for these kinds: maps merge, lists of
    named items merge by name, other lists are replaced. The items a patch names come
    first, in the patch's order, then the others: so kustomize orders them (which
    matters to environment variables that use others with $(...))."""
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            merge(target[key], value)
        elif isinstance(value, list) and _named(value) and _named(target.get(key)):
            by_name = {item["name"]: item for item in target[key]}
            patched = []
            for item in value:
                if item["name"] in by_name:
                    merge(by_name[item["name"]], item)
                    patched.append(by_name[item["name"]])
                else:
                    patched.append(copy.deepcopy(item))
            names = {item["name"] for item in value}
            target[key] = patched + [item for item in target[key] if item["name"] not in names]
        else:
            target[key] = copy.deepcopy(value)


def _named(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(i, dict) and "name" in i for i in value)


def pod_template(doc: Doc) -> Doc | None:
    """The template of the pods a workload makes (a CronJob's through its Jobs')."""
    if doc["kind"] in ("Deployment", "StatefulSet", "Job"):
        template: Doc = doc["spec"]["template"]
        return template
    if doc["kind"] == "CronJob":
        jobs: Doc = doc["spec"]["jobTemplate"]["spec"]["template"]
        return jobs
    return None


def pod_spec(doc: Doc) -> Doc | None:
    template = pod_template(doc)
    return None if template is None else template["spec"]  # type: ignore[no-any-return]


def pod_labels(doc: Doc) -> dict[str, str]:
    """The labels of the pods a workload makes."""
    template = pod_template(doc)
    assert template is not None, doc["kind"]
    labels: dict[str, str] = template["metadata"]["labels"]
    return labels


def all_containers(docs: list[Doc]) -> list[Doc]:
    containers: list[Doc] = []
    for doc in docs:
        spec = pod_spec(doc)
        if spec is not None:
            containers.extend(spec.get("initContainers", []) + spec["containers"])
    return containers
