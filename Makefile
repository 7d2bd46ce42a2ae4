# SPDX-License-Identifier: GPL-2.0
# Entry points; each target is one script in scripts/ (see README.md).

.PHONY: all check patches bench-flush bench-demux bench-ring \
	check-mutants check-upstream maintainers clean-cache

all:
	scripts/loop.sh run

check:
	scripts/loop.sh check

# Regenerate patches/ from the development worktree (maintainers).
patches:
	scripts/export-series.sh

# Prove that the selftests fail without the change they cover.
check-upstream:
	scripts/check-upstream.sh

check-mutants:
	scripts/check-mutants.sh

bench-flush bench-demux bench-ring:
	scripts/bench.sh $(@:bench-%=%)

# MAINTAINERS-snippet from scripts/get_maintainer.pl.
maintainers:
	scripts/gen-maintainers.sh

clean-cache:
	rm -rf /var/cache/netseries
