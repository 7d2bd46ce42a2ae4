# SPDX-License-Identifier: GPL-2.0
# Entry points; each target is one script in scripts/ (see README.md).

.PHONY: all check patches bench-flush bench-demux bench-ring \
	check-upstream check-mutants clean-cache

all:
	scripts/loop.sh run

check:
	scripts/loop.sh check

# Regenerate patches/ from the development worktree (maintainers).
patches:
	scripts/export-series.sh

clean-cache:
	rm -rf /var/cache/netseries
