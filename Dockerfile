# The image a detached gated rollout runs (`kubectl ds-rollout step ... --detach`, docs/gated/detached.md):
# the standalone executable `npm run package` builds (node and the bundle in one file, linux), on a distroless
# base that has the C and C++ runtime it links against and nothing else (no shell, no package manager).
#
#   npm run package
#   docker build -t ghcr.io/ds-rollout/ds-rollout:v$(node -p 'require("./package.json").version') .
#
# The tag is the default of --image (src/core/detach.ts, RELEASE_IMAGE_REPOSITORY). Building needs a container
# engine; CI has none, so CI tests the entrypoint as a process instead (test/cli/detach.test.ts).
FROM gcr.io/distroless/cc-debian12:nonroot
COPY dist-sea/stage/kubectl-ds_rollout /usr/local/bin/kubectl-ds_rollout
# The Job's pod runs as this user (runAsNonRoot, uid 65532: distroless's nonroot) with a read-only root filesystem.
USER 65532:65532
ENV NO_COLOR=1
ENTRYPOINT ["/usr/local/bin/kubectl-ds_rollout"]
