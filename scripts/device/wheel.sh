# Sourced by the device scripts (scripts/device-check.sh, scripts/device/common.sh, the by-card
# script): `install_wheel` puts the carried wheel in .whl/ into /tmp/kmut-site. --upgrade, since a
# warm machine keeps an earlier call's wheel there and pip leaves an installed package in place.
install_wheel() { python3 -m pip install -q --no-deps --no-compile --upgrade --target /tmp/kmut-site .whl/kmut-*.whl; }
