# Sourced by the device scripts: strict mode, unbuffered Python, and the
# carried Python bundle unpacked once and put on PYTHONPATH. The working
# tree's Python package and tests replace the bundle's copies (they travel
# with every call; the bundle only when its native libraries change).
#   source utils/device/bundle.sh
set -uo pipefail
export PYTHONUNBUFFERED=1
[[ -d .python-bundle ]] || tar xJf .python-bundle.tar.xz
cp -r python/tgc/. .python-bundle/tgc/
cp -r python/test/. .python-bundle/test/
export PYTHONPATH=$PWD/.python-bundle
