"""deploy/kubernetes: the base and the production overlay (with the restore Job beside
it), rendered offline (tests/deploy/kustomize.py, which gives what `kubectl kustomize`
gives: compared with it where kubectl is installed), every resource valid against the
Kubernetes schemas (kubernetes-validate), and the references between them sound:
selectors match pod labels, probes and Services name ports the containers have, every
environment variable is one its program reads, mounts name volumes, secrets come from
Secrets the pod's user may read, workloads run as non-root on a read-only root
filesystem with requests and limits."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from patience_contract.client import SERVICE_NAME

from tests.deploy.kustomize import (
    Doc,
    all_containers,
    find,
    pod_labels,
    pod_spec,
    render,
    split_image,
)
from tests.distributions import declared_scripts

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy" / "kubernetes"
FOLDERS = {"base": KUBERNETES / "base", "production": KUBERNETES / "overlays" / "production"}
# applied by hand beside the production overlay, to restore PostgreSQL from a dump
RESTORE = KUBERNETES / "restore"
# the oldest Kubernetes these manifests are meant for (gRPC probes are GA since 1.27)
KUBERNETES_VERSION = "1.30.0"
OUR_IMAGE = "patience-engine"
SEAL_SECRET, SEAL_FILE = "patience-seal-key", "seal.key"
TOKEN_SECRET, TOKEN_FILE = "patience-player-token-key", "player-token.key"
POSTGRES_SECRET = "patience-postgres"
# the variables the official postgres image's entrypoint reads (its documentation), and
# those libpq reads for its programs (pg_dump, pg_restore, dropdb)
POSTGRES_IMAGE_READS = {
    "POSTGRES_USER",
    "POSTGRES_DB",
    "POSTGRES_PASSWORD",
    "POSTGRES_PASSWORD_FILE",
    "POSTGRES_INITDB_ARGS",
    "PGDATA",
}
LIBPQ_READS = {"PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGPASSWORD", "PGPASSFILE"}
# what the other images' programs read (their documentation), beside the variables the
# scripts of the ConfigMaps use
IMAGE_READS = {
    "postgres": POSTGRES_IMAGE_READS | LIBPQ_READS,
    "redis": {"REDISCLI_AUTH"},  # redis-cli's password
    "oliver006/redis_exporter": {"REDIS_ADDR", "REDIS_PASSWORD"},
    "quay.io/prometheuscommunity/postgres-exporter": {
        "DATA_SOURCE_URI",
        "DATA_SOURCE_USER",
        "DATA_SOURCE_PASS_FILE",
    },
}
# set for the container itself, not read by our code: Python's, and values that other
# variables expand with $(...)
NOT_OURS = {"PYTHONDONTWRITEBYTECODE", "POD_NAMESPACE", "POD_IP", "REDIS_PASSWORD"}


@pytest.fixture(scope="module", params=sorted(FOLDERS))
def docs(request: pytest.FixtureRequest) -> list[Doc]:
    rendered = render(FOLDERS[request.param])
    if request.param == "production":
        rendered += render(RESTORE)
    return rendered


def workloads(docs: list[Doc]) -> list[Doc]:
    return [doc for doc in docs if pod_spec(doc) is not None]


RUN_ONCE = ("Job", "CronJob")


@pytest.mark.parametrize("folder", [*FOLDERS.values(), RESTORE, KUBERNETES / "monitoring"])
def test_the_offline_rendering_is_what_kubectl_kustomize_gives(folder: Path) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("no kubectl on PATH: the offline rendering is not compared with it")
    made = subprocess.run(
        [kubectl, "kustomize", str(folder)], capture_output=True, text=True, check=True
    )
    theirs = [doc for doc in yaml.safe_load_all(made.stdout) if doc]

    def key(doc: Doc) -> tuple[str, str]:
        return doc["kind"], doc["metadata"]["name"]

    assert sorted(render(folder), key=key) == sorted(theirs, key=key)


def selected(docs: list[Doc], selector: dict[str, str]) -> list[Doc]:
    return [w for w in workloads(docs) if selector.items() <= pod_labels(w).items()]


def names_the_code_reads() -> set[str]:
    """Every upper-case quoted name in the gateway's and engine's sources: the
    environment variables they read are among them."""
    names: set[str] = set()
    for package in ("gateway/patience_gateway", "engine/server/patience_engine"):
        for source in (ROOT / "services" / package).rglob("*.py"):
            names.update(re.findall(r"[\"']([A-Z][A-Z0-9_]{2,})[\"']", source.read_text()))
    return names


def test_every_resource_is_valid_against_the_kubernetes_schemas(docs: list[Doc]) -> None:
    for doc in docs:
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
    kinds = {doc["kind"] for doc in docs}
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"} <= kinds
    assert {"StatefulSet", "Job", "ConfigMap", "CronJob", "PersistentVolumeClaim"} <= kinds
    assert "NetworkPolicy" in kinds


def test_selectors_match_the_pods_they_mean(docs: list[Doc]) -> None:
    for workload in workloads(docs):
        if workload["kind"] not in RUN_ONCE:
            selector = workload["spec"]["selector"]["matchLabels"]
            assert selector.items() <= pod_labels(workload).items(), workload["metadata"]
    for doc in docs:
        if doc["kind"] in ("Service", "PodDisruptionBudget"):
            selector = doc["spec"]["selector"]
            selector = selector.get("matchLabels", selector)
            assert len(selected(docs, selector)) == 1, (doc["kind"], doc["metadata"]["name"])
        if doc["kind"] == "HorizontalPodAutoscaler":
            target = doc["spec"]["scaleTargetRef"]
            find(docs, target["kind"], target["name"])
        if doc["kind"] == "StatefulSet":
            service = find(docs, "Service", doc["spec"]["serviceName"])
            assert service["spec"]["clusterIP"] == "None"


def _ports(container: Doc) -> tuple[set[str], set[int]]:
    ports = container.get("ports", [])
    return {p["name"] for p in ports if "name" in p}, {p["containerPort"] for p in ports}


def _probe_port(probe: Doc) -> Any:
    for kind in ("grpc", "httpGet", "tcpSocket"):
        if kind in probe:
            return probe[kind]["port"]
    return None


def test_probes_and_services_name_ports_the_containers_have(docs: list[Doc]) -> None:
    for workload in workloads(docs):
        for container in pod_spec(workload)["containers"]:  # type: ignore[index]
            names, numbers = _ports(container)
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                if workload["kind"] in RUN_ONCE:
                    continue
                assert probe in container, (container["name"], probe)
                port = _probe_port(container[probe])
                if port is not None:
                    assert port in names or port in numbers, (container["name"], probe, port)
                if "grpc" in container[probe]:
                    assert container[probe]["grpc"]["service"] == SERVICE_NAME
    for service in (doc for doc in docs if doc["kind"] == "Service"):
        [workload] = selected(docs, service["spec"]["selector"])
        containers = pod_spec(workload)["containers"]  # type: ignore[index]
        for port in service["spec"]["ports"]:
            target = port.get("targetPort", port["port"])
            assert any(target in _ports(c)[0] | _ports(c)[1] for c in containers), target


def test_every_variable_is_one_the_service_reads(docs: list[Doc]) -> None:
    read = names_the_code_reads()
    scripts = "".join("".join(doc["data"].values()) for doc in docs if doc["kind"] == "ConfigMap")
    for container in all_containers(docs):
        defined: list[str] = []
        for variable in container.get("env", []):
            name = variable["name"]
            for reference in re.findall(r"\$\((\w+)\)", variable.get("value", "")):
                assert reference in defined, f"{name} uses $({reference}) before it is set"
            image = split_image(container["image"])[0]
            if image.endswith(OUR_IMAGE):
                assert name in read or name in NOT_OURS, f"{name} is read by no setting"
            else:
                assert name in scripts or name in IMAGE_READS[image], (
                    f"{name} is read by neither a script nor {image} ({container['name']})"
                )
            defined.append(name)
    assert {"REDIS_CLUSTER", "ENGINE_SEAL_KEY_FILE", "GATEWAY_WORKERS"} <= read
    assert {"DATABASE_URL", "PLAYER_TOKEN_KEY_FILE"} <= read


def test_mounts_name_volumes_and_the_seal_key_comes_from_its_secret(docs: list[Doc]) -> None:
    config_maps = {doc["metadata"]["name"]: doc for doc in docs if doc["kind"] == "ConfigMap"}
    for workload in workloads(docs):
        spec = pod_spec(workload)
        assert spec is not None
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        claims = {c["metadata"]["name"] for c in workload["spec"].get("volumeClaimTemplates", [])}
        for container in spec["containers"]:
            for mount in container.get("volumeMounts", []):
                assert mount["name"] in volumes or mount["name"] in claims, mount
        for volume in volumes.values():
            if "configMap" in volume:
                assert volume["configMap"]["name"] in config_maps
            if "secret" in volume:
                assert volume["secret"]["secretName"] in (
                    SEAL_SECRET,
                    TOKEN_SECRET,
                    POSTGRES_SECRET,
                )
            if "persistentVolumeClaim" in volume:
                find(docs, "PersistentVolumeClaim", volume["persistentVolumeClaim"]["claimName"])
    engine = find(docs, "Deployment", "patience-engine")
    [container] = pod_spec(engine)["containers"]  # type: ignore[index]
    env = {v["name"]: v.get("value") for v in container["env"]}
    [mount] = [m for m in container["volumeMounts"] if m["name"] == "seal-key"]
    assert env["ENGINE_SEAL_KEY_FILE"] == f"{mount['mountPath']}/{SEAL_FILE}"
    assert "ENGINE_SEAL_KEY" not in env  # the key never sits in the manifest


def secret_mount(workload: Doc, container: Doc, secret: str) -> str:
    """Where `container` finds the files of the Secret `secret`."""
    volumes = pod_spec(workload)["volumes"]  # type: ignore[index]
    [volume] = [v for v in volumes if v.get("secret", {}).get("secretName") == secret]
    [mount] = [m for m in container["volumeMounts"] if m["name"] == volume["name"]]
    assert mount["readOnly"] is True
    path: str = mount["mountPath"]
    return path


def test_the_gateways_secrets_come_from_secrets(docs: list[Doc]) -> None:
    """The database's URL (with its password) and the token keys never sit in a
    manifest: DATABASE_URL from a Secret's key, the keys as a Secret's file."""
    gateway = find(docs, "Deployment", "patience-gateway")
    [container] = pod_spec(gateway)["containers"]  # type: ignore[index]
    env = {v["name"]: v for v in container["env"]}
    assert env["DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == POSTGRES_SECRET
    assert "value" not in env["DATABASE_URL"]
    key_file = env["PLAYER_TOKEN_KEY_FILE"]["value"]
    assert key_file == f"{secret_mount(gateway, container, TOKEN_SECRET)}/{TOKEN_FILE}"
    assert "PLAYER_TOKEN_KEYS" not in env


def test_every_secret_file_is_readable_by_the_pods_user_alone(docs: list[Doc]) -> None:
    """A Secret's files belong to root: a pod that runs as another user reads them
    through its fsGroup, with the group's read bit, and nobody else may read them."""
    for workload in workloads(docs):
        spec = pod_spec(workload)
        assert spec is not None
        for volume in spec.get("volumes", []):
            if "secret" in volume:
                mode = volume["secret"]["defaultMode"]
                assert mode & 0o040 and not mode & 0o007, (workload["metadata"]["name"], oct(mode))
                context = spec["securityContext"]
                assert context["fsGroup"] == context["runAsGroup"], workload["metadata"]["name"]


def test_postgres_keeps_its_data_and_is_probed_over_tcp(docs: list[Doc]) -> None:
    postgres = find(docs, "StatefulSet", "patience-postgres")
    assert postgres["spec"]["replicas"] == 1  # a second replica would be another database
    [claim] = postgres["spec"]["volumeClaimTemplates"]
    spec = pod_spec(postgres)
    assert spec is not None
    [container] = spec["containers"]
    env = {v["name"]: v.get("value") for v in container["env"]}
    [data] = [m for m in container["volumeMounts"] if m["name"] == claim["metadata"]["name"]]
    assert env["PGDATA"].startswith(data["mountPath"] + "/")  # below lost+found's folder
    password = secret_mount(postgres, container, POSTGRES_SECRET)
    assert env["POSTGRES_PASSWORD_FILE"].startswith(password + "/")
    assert "POSTGRES_PASSWORD" not in env
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        command = container[probe]["exec"]["command"]
        assert command[0] == "pg_isready"
        # the temporary server of the first start answers on the Unix socket only
        assert command[command.index("--host") + 1] == "127.0.0.1"
        assert command[command.index("--username") + 1] == env["POSTGRES_USER"]
    # the Alpine image's postgres user, which owns what it writes
    assert split_image(container["image"])[1].endswith("-alpine")
    assert spec["securityContext"]["runAsUser"] == 70


def test_containers_are_locked_down_and_sized(docs: list[Doc]) -> None:
    scripts = declared_scripts()
    for workload in workloads(docs):
        spec = pod_spec(workload)
        assert spec is not None
        assert spec["securityContext"]["runAsNonRoot"] is True
        assert spec["automountServiceAccountToken"] is False
        for container in spec["containers"]:
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True
            assert security["allowPrivilegeEscalation"] is False
            assert security["capabilities"]["drop"] == ["ALL"]
            resources = container["resources"]
            assert {"cpu", "memory"} <= set(resources["requests"]) & set(resources["limits"])
            if split_image(container["image"])[0].endswith(OUR_IMAGE):
                assert container["command"][0] in scripts


def test_the_gateway_reaches_every_engine_pod_and_the_cluster(docs: list[Doc]) -> None:
    gateway = find(docs, "Deployment", "patience-gateway")
    [container] = pod_spec(gateway)["containers"]  # type: ignore[index]
    env = {v["name"]: v.get("value", "") for v in container["env"]}
    engine_service = find(docs, "Service", "patience-engine")
    assert engine_service["spec"]["clusterIP"] == "None"  # round_robin sees every pod
    assert env["ENGINE_ADDR"].startswith("dns:///patience-engine.")
    assert env["REDIS_CLUSTER"] == "true"
    redis = find(docs, "StatefulSet", "patience-redis")
    job = find(docs, "Job", "patience-redis-cluster-create")
    [create] = pod_spec(job)["containers"]  # type: ignore[index]
    job_env = {v["name"]: v["value"] for v in create["env"] if "value" in v}
    assert int(job_env["REDIS_NODES"]) == redis["spec"]["replicas"]
    replicas = int(job_env["REDIS_REPLICAS_PER_PRIMARY"])
    assert redis["spec"]["replicas"] % (1 + replicas) == 0
    assert redis["spec"]["replicas"] // (1 + replicas) >= 3  # a cluster needs 3 primaries
    for node in range(3):  # the seed nodes exist
        assert f"patience-redis-{node}.patience-redis." in env["REDIS_URL"]
    if int(env.get("REDIS_WAIT_REPLICAS", "0")) >= 1:
        assert replicas >= 2  # a replica is left after a failover (docs/operations.md)
