#!/usr/bin/env python3
"""Flag Kubernetes pod specs that make container-to-node escape easy. Reads YAML; no cluster access."""
import sys

import yaml

RISKY_CAPS = {"SYS_ADMIN": "high", "SYS_PTRACE": "high", "SYS_MODULE": "high", "DAC_READ_SEARCH": "high",
              "NET_ADMIN": "medium", "NET_RAW": "low", "ALL": "high"}
RISKY_PATHS = {"/": "high", "/etc": "high", "/root": "high", "/proc": "high", "/sys": "medium",
               "/var/run/docker.sock": "high", "/run/containerd/containerd.sock": "high",
               "/var/run/crio/crio.sock": "high", "/var/lib/kubelet": "high", "/dev": "high"}


def pod_specs(doc):
    if not isinstance(doc, dict):
        return
    if doc.get("kind") == "List":
        for item in doc.get("items", []):
            yield from pod_specs(item)
        return
    spec = doc.get("spec") or {}
    for path in (("template", "spec"), ("jobTemplate", "spec", "template", "spec")):
        node = spec
        for key in path:
            node = (node or {}).get(key)
        if node:
            yield doc, node
            return
    if doc.get("kind") == "Pod":
        yield doc, spec


def audit(doc, spec):
    meta = doc.get("metadata", {})
    where = f"{meta.get('namespace', 'default')}/{doc.get('kind')}/{meta.get('name')}"
    for flag in ("hostPID", "hostIPC", "hostNetwork"):
        if spec.get(flag):
            yield where, "-", flag, "high" if flag != "hostNetwork" else "medium"
    for vol in spec.get("volumes") or []:
        path = (vol.get("hostPath") or {}).get("path")
        if path:
            yield where, "-", f"hostPath {path}", RISKY_PATHS.get(path.rstrip("/") or "/", "low")
    if spec.get("automountServiceAccountToken", True):
        yield where, "-", "service-account token automounted", "info"
    for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        sc = c.get("securityContext") or {}
        name = c.get("name")
        if sc.get("privileged"):
            yield where, name, "privileged", "high"
        if sc.get("allowPrivilegeEscalation", True):
            yield where, name, "allowPrivilegeEscalation not false", "low"
        if sc.get("runAsUser") == 0 or not (sc.get("runAsNonRoot") or spec.get("securityContext", {}).get("runAsNonRoot")):
            yield where, name, "may run as root", "low"
        for cap in (sc.get("capabilities") or {}).get("add") or []:
            cap = cap.upper().removeprefix("CAP_")
            if cap in RISKY_CAPS:
                yield where, name, f"capability {cap}", RISKY_CAPS[cap]
        if (sc.get("seccompProfile") or {}).get("type") == "Unconfined":
            yield where, name, "seccomp Unconfined", "medium"


def main(paths):
    print("workload\tcontainer\tfinding\tseverity")
    order = {"high": 0, "medium": 1, "low": 2, "info": 3}
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for doc in yaml.safe_load_all(fh):
                for d, spec in pod_specs(doc):
                    rows.extend(audit(d, spec))
    for row in sorted(set(rows), key=lambda r: (order[r[3]], r[0])):
        print("\t".join(map(str, row)))


if __name__ == "__main__":
    main(sys.argv[1:] or ["workloads.yaml"])
