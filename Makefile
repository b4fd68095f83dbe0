# The Speed games platform. Two commands on a fresh machine (Python >= 3.11 and make):
#   make run    the whole platform, data kept under .data/
#   make test   every test, against throwaway servers the tests start themselves
PYTHON ?= python3
VENV := .venv
TOOLS := .tools
UV := $(TOOLS)/bin/uv
PY := $(VENV)/bin/python
UV_VERSION := 0.13.9
export UV_PROJECT_ENVIRONMENT := $(VENV)
# Byte-code caches make every service start in ~1 s instead of ~4 s; some machines disable them globally.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run observe test venv lint typecheck contracts demo bench screens clean image test-containers

# uv itself comes from PyPI into a tools folder; everything else from the lock file.
$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(VENV)/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --frozen --compile-bytecode --python $(PYTHON) --quiet
	@touch $@

venv: $(VENV)/.synced

# The bench's own packages (the `bench` group: catanatron, measured beside Speedspore) on top of the test
# environment, so `make venv` / `make test` never install them. Redone whenever the base environment is.
$(VENV)/.synced-bench: $(VENV)/.synced
	$(UV) sync --frozen --compile-bytecode --python $(PYTHON) --quiet --group bench
	@touch $@

# OBSERVE=1 (or `make observe`): also Prometheus from Debian's `prometheus` package, scraping everything as the
# cluster's does (docs/operations.md, "On your laptop"). CLUSTER=3: NATS as a three-node JetStream cluster on
# loopback ports, every stream with three replicas.
# CONTAINERS=1: every service from the image (`make image`, built first) in a podman container, run as the
# manifests in deploy/k8s run them, against the same NATS and PostgreSQL (docs/operations.md, "The platform in
# containers (proven here)").
ifneq ($(filter-out 0,$(CONTAINERS)),)
run: image
	$(PY) -m tools.containers
else
run: venv
	$(PY) -m libs.devservers.stack $(if $(filter-out 0,$(OBSERVE)),--observe) $(if $(CLUSTER),--cluster $(CLUSTER))
endif

observe: venv
	$(PY) -m libs.devservers.stack --observe $(if $(CLUSTER),--cluster $(CLUSTER))

test: venv contracts lint typecheck
	$(PY) -m pytest -q -p no:cacheprovider

# The one image (deploy/Containerfile) with podman: Debian's python3 as the base (made with mmdebstrap, cached
# under .data/images/), uv from PyPI. BASE_IMAGE=python:3.11-slim UV_IMAGE=ghcr.io/astral-sh/uv:0.13.9 where a
# registry is reachable.
image: venv
	$(PY) -m tools.image

# The image built and the platform played in its containers (tests/deploy/test_containers.py; CI runs it after
# `make test`). Needs podman, runc and mmdebstrap (as root: apt-get install -y podman runc mmdebstrap).
test-containers: venv
	$(PY) -m pytest -q -p no:cacheprovider -m containers tests/deploy/test_containers.py tests/deploy/test_container_faults.py

contracts: venv
	$(VENV)/bin/lint-imports

lint: venv
	$(VENV)/bin/ruff check .

typecheck: venv
	$(VENV)/bin/mypy libs services

# SLOW=1: human pace (computers pause, the guest thinks, every move's log lines printed).
# The screenshots the README shows (docs/screens/): the browser tests, saving into the tracked folder.
screens: venv
	SPEED_SCREENS=docs/screens $(PY) -m pytest -q -p no:cacheprovider tests/web

demo: venv
	$(PY) -m tools.demo $(if $(filter-out 0,$(SLOW)),--slow)

# Every bench runs (each writes its JSON into .bench/); the target fails if any of them missed a target.
BENCHES := bench platform_bench affinity_bench replay_bench web_bench rating_bench archive_bench match_bench
bench: $(VENV)/.synced-bench
	@missed=""; for tool in $(BENCHES); do $(PY) -m tools.$$tool || missed="$$missed $$tool"; done; \
	if [ -n "$$missed" ]; then echo "make bench: targets missed in:$$missed" >&2; exit 1; fi

clean:
	rm -rf $(VENV) $(TOOLS)
