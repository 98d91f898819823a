# Sourced by the device scripts: strict mode, unbuffered Python, and the
# carried Python bundle unpacked once and put on PYTHONPATH.
#   source utils/device/bundle.sh
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
export PYTHONPATH=$PWD/.python-bundle
