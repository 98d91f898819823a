# Sourced by the device scripts: strict mode, unbuffered Python, and the
# carried Python bundle unpacked once and put on PYTHONPATH. The working
# tree's Python package and tests replace the bundle's copies (they travel
# with every call; the bundle only when its native libraries change).
#   source utils/device/bundle.sh
set -uo pipefail
export PYTHONUNBUFFERED=1
# A machine kept warm between calls keeps the unpacked bundle: unpack again
# when the carried tarball is another one (an old bundle's native
# libraries with new Python would test the wrong compiler).
bundle_sum=$(md5sum .python-bundle.tar.xz 2>/dev/null | cut -d' ' -f1)
if [[ ! -d .python-bundle || "$(cat .python-bundle/.tarball-md5 2>/dev/null)" != "$bundle_sum" ]]; then
  rm -rf .python-bundle && tar xJf .python-bundle.tar.xz && echo "$bundle_sum" > .python-bundle/.tarball-md5
fi
cp -r python/tgc/. .python-bundle/tgc/
cp -r python/test/. .python-bundle/test/
export PYTHONPATH=$PWD/.python-bundle
