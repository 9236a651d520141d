#!/usr/bin/env bash
# Installs every Debian 12 package Moreau's build and tests need.
# Idempotent: packages already present are left alone. Run as root (or with sudo).
set -euo pipefail

pkgs=(
  # build
  meson ninja-build pkg-config gcc g++ python3
  # collision: GJK/EPA/MPR for convex pairs, convex hulls
  libccd-dev libqhull-dev
  # sparse Cholesky (CHOLMOD) for the bilateral solver MO_SOLVER_CHOLESKY (optional: -Dcholmod)
  libsuitesparse-dev
  # FCLIB contact problems (HDF5; libfclib for the interoperability test)
  libhdf5-dev libfclib-dev
  # scene files (Lua 5.4), URDF (libxml2), meshes (Assimp: OBJ, STL, Collada, glTF)
  liblua5.4-dev libxml2-dev libassimp-dev
  # moreau-view: GLFW, an OpenGL loader, cglm, PNG screenshots; Xvfb + Mesa for headless GL in CI
  libglfw3-dev libepoxy-dev libcglm-dev libpng-dev xvfb xauth libgl1-mesa-dri
  # the Python package moreau (optional: -Dpython): headers, NumPy; pytest for its tests
  python3-dev python3-numpy python3-pytest
  # moreau-sweep over MPI ranks (optional: -Dmpi): Open MPI's headers and mpirun
  libopenmpi-dev openmpi-bin
  # tests and CI helpers
  valgrind
  # moreau-bench peers: the outside engines' benchmark programs in ../shared/tools/peers
  # (make -C ../shared/tools/peers; MuJoCo 2.2.2, Bullet 3.24, ODE 0.16)
  libmujoco-dev libbullet-dev libode-dev g++ make
  # fuzzing (tools/fuzz.sh, CI's third stage): clang and its libFuzzer + sanitizer runtimes
  # (libclang_rt.fuzzer-x86_64.a is in libclang-rt-14-dev)
  clang clang-14 libclang-rt-14-dev
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi

SUDO=
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
