"""What deploy/kubernetes holds for production beyond valid resources: who may reach whom
(the NetworkPolicies, read as the exact list of callers, ports and pods they admit),
readiness probes that outwait /readyz while liveness asks /livez only, Redis's password
from a Secret on every side (the nodes, redis-cli, the exporter, the gateway's URL), and
PostgreSQL's nightly backup with the restore Job that reads it back (the scripts
themselves are run for real by tests/deploy/test_backup_restore.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from patience_gateway.settings import Settings

from tests.deploy.kustomize import Doc, find, pod_labels, pod_spec, render, split_image

KUBERNETES = Path(__file__).resolve().parents[2] / "deploy" / "kubernetes"
FOLDERS = {"base": KUBERNETES / "base", "production": KUBERNETES / "overlays" / "production"}
NAME = "app.kubernetes.io/name"
REDIS_SECRET = {"name": "patience-redis", "key": "password"}
POSTGRES_PASSWORD = {"name": "patience-postgres", "key": "password"}
BACKUP_SCRIPTS = "patience-postgres-backup"

# Every connection a pod of the namespace may receive: (caller, callee's pods, port).
# A caller outside the namespace is "namespace/pod name".
ADMITTED = {
    ("ingress-nginx/ingress-nginx", "patience-gateway", "http"),
    ("patience-gateway", "patience-engine", "grpc"),
    ("patience-gateway", "patience-redis", "redis"),
    ("patience-redis-cluster-create", "patience-redis", "redis"),
    ("patience-redis", "patience-redis", "redis"),
    ("patience-redis", "patience-redis", "bus"),
    ("patience-gateway", "patience-postgres", "postgres"),
    ("patience-postgres-backup", "patience-postgres", "postgres"),
    ("patience-postgres-restore", "patience-postgres", "postgres"),
    ("patience-postgres-exporter", "patience-postgres", "postgres"),
}


@pytest.fixture(scope="module", params=sorted(FOLDERS))
def docs(request: pytest.FixtureRequest) -> list[Doc]:
    """A kustomization, with the restore Job that is applied beside it."""
    return render(FOLDERS[request.param]) + render(KUBERNETES / "restore")


def workloads(docs: list[Doc]) -> list[Doc]:
    return [doc for doc in docs if pod_spec(doc) is not None]


def matches(selector: Doc, labels: dict[str, str]) -> bool:
    """A Kubernetes label selector (matchLabels, matchExpressions with In)."""
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for expression in selector.get("matchExpressions", []):
        assert expression["operator"] == "In", expression
        if labels.get(expression["key"]) not in expression["values"]:
            return False
    return True


def container_ports(workload: Doc) -> set[str]:
    spec = pod_spec(workload)
    assert spec is not None
    return {p["name"] for c in spec["containers"] for p in c.get("ports", []) if "name" in p}


def admitted(docs: list[Doc]) -> set[tuple[str, str, str]]:
    """What the NetworkPolicies admit, read from them."""
    found = set()
    for policy in (doc for doc in docs if doc["kind"] == "NetworkPolicy"):
        assert policy["spec"]["policyTypes"] == ["Ingress"], policy["metadata"]["name"]
        targets = [
            w for w in workloads(docs) if matches(policy["spec"]["podSelector"], pod_labels(w))
        ]
        assert targets, f"{policy['metadata']['name']} selects no pod"
        for rule in policy["spec"].get("ingress", []):
            # a rule without callers or without ports would admit anyone, or any port
            assert rule.get("from") and rule.get("ports"), policy["metadata"]["name"]
            for peer in rule["from"]:
                if "namespaceSelector" in peer:
                    namespace = peer["namespaceSelector"]["matchLabels"]
                    callers = [
                        f"{namespace['kubernetes.io/metadata.name']}/"
                        f"{peer['podSelector']['matchLabels'][NAME]}"
                    ]
                else:
                    callers = [
                        pod_labels(w)[NAME]
                        for w in workloads(docs)
                        if matches(peer["podSelector"], pod_labels(w))
                    ]
                    assert callers, (policy["metadata"]["name"], peer)
                for caller in callers:
                    for port in rule["ports"]:
                        for target in targets:
                            # a named port: each pod it admits to has it
                            assert port["port"] in container_ports(target), (target, port)
                            found.add((caller, pod_labels(target)[NAME], port["port"]))
    return found


def test_every_pod_is_covered_and_only_the_callers_it_needs_are_admitted(
    docs: list[Doc],
) -> None:
    policies = [doc for doc in docs if doc["kind"] == "NetworkPolicy"]
    [deny] = [p for p in policies if p["spec"]["podSelector"] == {}]
    assert "ingress" not in deny["spec"]  # every pod of the namespace: nothing admitted
    for workload in workloads(docs):
        specific = [
            p
            for p in policies
            if p is not deny and matches(p["spec"]["podSelector"], pod_labels(workload))
        ]
        # it serves: a policy says who may call it (its metrics are for Prometheus,
        # admitted by deploy/kubernetes/monitoring); nothing calls a backup, a restore
        # or the Job that forms the cluster
        serves = bool(container_ports(workload) - {"metrics"})
        assert bool(specific) == serves, workload["metadata"]["name"]
    assert admitted(docs) == ADMITTED


def probe_seconds(probe: Doc) -> int:
    return int(probe.get("timeoutSeconds", 1))


def readyz_seconds() -> float:
    """How long /readyz may take (services/gateway, http/routes/operations.py): Redis's
    PING (the Redis deadline) beside the engine's health check (the engine deadline),
    then the engine's state protection (the engine deadline again)."""
    settings = Settings()
    deadlines = (settings.redis_timeout_seconds, settings.engine_timeout_seconds)
    return max(deadlines) + settings.engine_timeout_seconds


def test_readiness_outwaits_readyz_and_liveness_asks_livez_only(docs: list[Doc]) -> None:
    gateway = find(docs, "Deployment", "patience-gateway")
    [container] = pod_spec(gateway)["containers"]  # type: ignore[index]
    readiness = container["readinessProbe"]
    assert readiness["httpGet"]["path"] == "/readyz"
    assert probe_seconds(readiness) > readyz_seconds() >= 10
    for probe in ("startupProbe", "livenessProbe"):
        # /livez: the process answers; nothing it depends on is asked, so that Redis
        # or the engine away never gets the gateway restarted
        assert container[probe]["httpGet"]["path"] == "/livez", probe
        assert probe_seconds(container[probe]) < probe_seconds(readiness)
    engine = find(docs, "Deployment", "patience-engine")
    [container] = pod_spec(engine)["containers"]  # type: ignore[index]
    for probe in ("readinessProbe", "livenessProbe"):
        assert probe_seconds(container[probe]) >= 2, probe


def env_of(container: Doc) -> dict[str, Any]:
    return {v["name"]: v.get("value", v.get("valueFrom")) for v in container.get("env", [])}


def containers(workload: Doc) -> dict[str, Doc]:
    spec = pod_spec(workload)
    assert spec is not None
    return {c["name"]: c for c in spec["containers"]}


def test_redis_asks_for_the_password_of_its_secret_everywhere(docs: list[Doc]) -> None:
    redis = find(docs, "StatefulSet", "patience-redis")
    node, exporter = containers(redis)["redis"], containers(redis)["exporter"]
    config = find(docs, "ConfigMap", "patience-redis")["data"]
    # the node: requirepass and masterauth, written from the Secret into a file of the
    # pod's memory that redis.conf includes (never on a command line, never in a manifest)
    env = env_of(node)
    assert env["REDIS_PASSWORD"] == {"secretKeyRef": REDIS_SECRET}
    [included] = re.findall(r"^include (\S+)$", config["redis.conf"], re.MULTILINE)
    folder = included.rsplit("/", 1)[0]
    [mount] = [m for m in node["volumeMounts"] if m["mountPath"] == folder]
    volumes = {v["name"]: v for v in pod_spec(redis)["volumes"]}  # type: ignore[index]
    assert volumes[mount["name"]]["emptyDir"]["medium"] == "Memory"
    start = config["start.sh"]
    assert f"> {included}" in start and "umask 077" in start
    for directive in ("requirepass", "masterauth"):
        assert re.search(rf'{directive} "%s"', start), directive
        assert not re.search(rf"^{directive}\b", config["redis.conf"], re.MULTILINE)
    # redis-cli (the probes, the Job that forms the cluster) and the exporter
    assert env["REDISCLI_AUTH"] == {"secretKeyRef": REDIS_SECRET}
    job = find(docs, "Job", "patience-redis-cluster-create")
    assert env_of(containers(job)["create"])["REDISCLI_AUTH"] == {"secretKeyRef": REDIS_SECRET}
    assert env_of(exporter)["REDIS_PASSWORD"] == {"secretKeyRef": REDIS_SECRET}
    # the gateway: the Secret's password into the first URL, which its client uses with
    # every node, expanded by Kubernetes (defined first)
    gateway = find(docs, "Deployment", "patience-gateway")
    names = [v["name"] for v in containers(gateway)["gateway"]["env"]]
    env = env_of(containers(gateway)["gateway"])
    assert env["REDIS_PASSWORD"] == {"secretKeyRef": REDIS_SECRET}
    assert names.index("REDIS_PASSWORD") < names.index("REDIS_URL")
    first = env["REDIS_URL"].split(",")[0]
    assert first.startswith("redis://:$(REDIS_PASSWORD)@patience-redis-0.")


def backup_parts(docs: list[Doc]) -> tuple[Doc, Doc, dict[str, str]]:
    """The backup's CronJob, its container, and the scripts of its ConfigMap."""
    cron = find(docs, "CronJob", "patience-postgres-backup")
    [container] = pod_spec(cron)["containers"]  # type: ignore[index]
    scripts: dict[str, str] = find(docs, "ConfigMap", BACKUP_SCRIPTS)["data"]
    return cron, container, scripts


def mounted(workload: Doc, container: Doc) -> dict[str, Doc]:
    """The volumes of the container, by where they are mounted."""
    volumes = {v["name"]: v for v in pod_spec(workload)["volumes"]}  # type: ignore[index]
    return {m["mountPath"]: volumes[m["name"]] for m in container["volumeMounts"]}


def test_the_backup_dumps_the_gateways_database_every_night(docs: list[Doc]) -> None:
    cron, container, scripts = backup_parts(docs)
    assert len(cron["spec"]["schedule"].split()) == 5
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"  # one dump at a time
    # the script of the ConfigMap, run from its mount
    assert container["command"][0] == "/bin/sh"
    folder, script = container["command"][1].rsplit("/", 1)
    volumes = mounted(cron, container)
    assert volumes[folder]["configMap"]["name"] == BACKUP_SCRIPTS and script == "backup.sh"
    assert "pg_dump --format=custom --no-password" in scripts[script]
    assert "pg_restore --list" in scripts[script]  # each dump read back
    # the database the gateway records into, on the server of the StatefulSet, with the
    # Secret's password; the dumps onto the claim; a retention of N dumps
    postgres = find(docs, "StatefulSet", "patience-postgres")
    server_env = env_of(containers(postgres)["postgres"])
    env = env_of(container)
    service = find(docs, "Service", "patience-postgres")
    assert env["PGHOST"] == service["metadata"]["name"]
    assert env["PGPORT"] == str(service["spec"]["ports"][0]["port"])
    assert (env["PGUSER"], env["PGDATABASE"]) == (
        server_env["POSTGRES_USER"],
        server_env["POSTGRES_DB"],
    )
    assert env["PGPASSWORD"] == {"secretKeyRef": POSTGRES_PASSWORD}
    claim = volumes[env["BACKUP_DIR"]]["persistentVolumeClaim"]["claimName"]
    find(docs, "PersistentVolumeClaim", claim)
    assert int(env["BACKUP_KEEP"]) >= 7
    # pg_dump of the server's own version
    assert container["image"] == containers(postgres)["postgres"]["image"]


def test_the_restore_job_reads_the_backups_dumps_back(docs: list[Doc]) -> None:
    cron, backup, scripts = backup_parts(docs)
    job = find(docs, "Job", "patience-postgres-restore")
    [container] = pod_spec(job)["containers"]  # type: ignore[index]
    assert job["spec"]["backoffLimit"] == 0  # a failed restore is for a person to read
    folder, script = container["command"][1].rsplit("/", 1)
    volumes = mounted(job, container)
    assert volumes[folder]["configMap"]["name"] == BACKUP_SCRIPTS and script == "restore.sh"
    assert "dropdb --force --if-exists" in scripts[script]
    assert "pg_restore --create --exit-on-error" in scripts[script]
    env, backup_env = env_of(container), env_of(backup)
    for name in ("PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGPASSWORD", "BACKUP_DIR"):
        assert env[name] == backup_env[name], name
    assert volumes[env["BACKUP_DIR"]] == mounted(cron, backup)[backup_env["BACKUP_DIR"]]
    assert container["image"] == backup["image"]  # pg_restore of the server's version


def test_every_image_is_pinned(docs: list[Doc]) -> None:
    for workload in workloads(docs):
        for container in containers(workload).values():
            tag = split_image(container["image"])[1]
            assert tag and tag != "latest", container["image"]
