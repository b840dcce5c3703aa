#!/usr/bin/env bash
# Installs the CPU drivers (and the browser) Loom's tests run on, on Debian bookworm:
#
#   - OpenCL: PoCL (pocl-opencl-icd) behind the ICD loader (ocl-icd-libopencl1), from bookworm itself,
#     plus clinfo for looking at what got installed (optional: a failure there is only reported).
#   - Vulkan (for WebGPU through Dawn): Mesa's lavapipe (mesa-vulkan-drivers) and the Vulkan loader
#     (libvulkan1) from bookworm-backports, because bookworm's own Mesa 22.3 is too old for Dawn.
#   - A browser: Chromium (chromium), from bookworm itself, for the playground's end-to-end test
#     (test/playground-browser.test.ts: WebGPU on its built-in SwiftShader, headless).
#
# It runs in CI on every build, so the common case (everything already there) must cost no more than
# a few dpkg queries: apt is only touched when something is missing or too old.
#
# Idempotent and non-interactive. Prints one summary line; apt's own output is kept in a log that is
# shown only when something fails.
set -euo pipefail

readonly MIN_MESA_VERSION=25          # lavapipe from Mesa 25 is what Dawn is known to work with
readonly BACKPORTS_FILE=/etc/apt/sources.list.d/bookworm-backports.sources

say() { echo "install-drivers: $*"; }
fail() { say "$*" >&2; exit 1; }

# --- privileges: root runs apt directly; anyone else needs sudo ------------------------------------
if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  SUDO=()   # decided below: only an error if something actually has to be installed
fi

# --- what is installed now -------------------------------------------------------------------------
installed_version() {   # prints the installed version of a package, or nothing
  dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$1" 2>/dev/null | awk '$1 == "installed" { print $2 }'
}

version_at_least() {    # version_at_least VERSION MINIMUM
  [[ -n $1 ]] && dpkg --compare-versions "$1" ge "$2"
}

# the C device compiles kernels with the system's C compiler: gcc (libgomp, its OpenMP, comes with it)
c_compiler_ready() {
  [[ -n $(installed_version gcc) ]]
}

opencl_ready() {
  [[ -n $(installed_version pocl-opencl-icd) && -n $(installed_version ocl-icd-libopencl1) ]]
}

vulkan_ready() {
  version_at_least "$(installed_version mesa-vulkan-drivers)" "$MIN_MESA_VERSION" &&
    [[ -n $(installed_version libvulkan1) ]]
}

chromium_ready() {
  [[ -n $(installed_version chromium) ]]
}

summary() {
  local prefix=$1
  say "$prefix pocl-opencl-icd $(installed_version pocl-opencl-icd)," \
      "mesa-vulkan-drivers $(installed_version mesa-vulkan-drivers)," \
      "libvulkan1 $(installed_version libvulkan1)," \
      "chromium $(installed_version chromium)" \
      "$( [[ -n $(installed_version clinfo) ]] && echo "(clinfo $(installed_version clinfo))" || echo "(no clinfo)")"
}

# The fast path: CI hits this every time after the first install (or with a cached image).
if c_compiler_ready && opencl_ready && vulkan_ready && chromium_ready; then
  summary "already present:"
  exit 0
fi

# --- from here on apt is needed ----------------------------------------------------------------------
command -v apt-get >/dev/null 2>&1 || fail "apt-get not found: this script is written for Debian bookworm"
[[ $(id -u) -eq 0 || ${#SUDO[@]} -gt 0 ]] || fail "not root and no sudo: cannot install packages"

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[[ $codename == bookworm ]] || fail "written for Debian bookworm, found '${codename:-unknown}'"

log=$(mktemp -t install-drivers.XXXXXX.log)
trap 'rm -f "$log"' EXIT
run_quietly() {         # runs a command with its output in the log; on failure shows the log and stops
  if ! "$@" >>"$log" 2>&1; then
    tail -n 40 "$log" >&2
    fail "failed: $*"
  fi
}

apt_get() {
  run_quietly "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get -y -q -o Dpkg::Use-Pty=0 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@"
}

# Backports are only used for what is asked with -t bookworm-backports (apt gives them priority 100),
# so adding the source changes nothing else on the machine.
backports_configured() {
  grep -rqs --include='*.list' --include='*.sources' -E '(^|[[:space:]])bookworm-backports([[:space:]]|$)' \
    /etc/apt/sources.list /etc/apt/sources.list.d/
}

if ! vulkan_ready && ! backports_configured; then
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  {
    echo "Types: deb"
    echo "URIs: http://deb.debian.org/debian"
    echo "Suites: bookworm-backports"
    echo "Components: main"
    [[ -f $keyring ]] && echo "Signed-By: $keyring"
  } | run_quietly "${SUDO[@]}" tee "$BACKPORTS_FILE"
fi

apt_get update

c_compiler_ready || apt_get install --no-install-recommends gcc libc6-dev
opencl_ready || apt_get install --no-install-recommends pocl-opencl-icd ocl-icd-libopencl1
vulkan_ready || apt_get install --no-install-recommends -t bookworm-backports mesa-vulkan-drivers libvulkan1
chromium_ready || apt_get install --no-install-recommends chromium

# clinfo is a convenience for people looking at a machine; the tests do not need it.
if [[ -z $(installed_version clinfo) ]]; then
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -q install --no-install-recommends clinfo \
    >>"$log" 2>&1 || say "note: clinfo could not be installed (not needed by the tests)"
fi

c_compiler_ready || fail "gcc is still missing after installing it"
opencl_ready || fail "PoCL is still missing after installing it"
vulkan_ready || fail "mesa-vulkan-drivers is still older than $MIN_MESA_VERSION after installing it from bookworm-backports"
chromium_ready || fail "chromium is still missing after installing it"
summary "installed:"
