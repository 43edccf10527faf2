# Sourced by the device scripts (scripts/device-check.sh, scripts/device/common.sh, the by-card
# and tiled scripts): `install_wheel` puts the carried wheel in .whl/ into /tmp/kmut-site. --upgrade,
# since a warm machine keeps an earlier call's wheel there and pip leaves an installed package in
# place. The wheel's digest is kept beside it, so a script that sources another (the by-card
# script runs the campaign script) installs a wheel once per call, not once per script.
# KMUT_SITE (default /tmp/kmut-site, where the scripts' PYTHONPATH looks) is for the test.
install_wheel() {
  local wheel digest site=${KMUT_SITE:-/tmp/kmut-site}
  wheel=$(ls .whl/kmut-*.whl) || return 1
  digest=$(sha256sum "$wheel" | cut -d' ' -f1)
  [ "$(cat "$site/.kmut-wheel" 2>/dev/null)" = "$digest" ] && return 0
  python3 -m pip install -q --no-deps --no-compile --upgrade --target "$site" "$wheel" || return 1
  echo "$digest" > "$site/.kmut-wheel"
}
