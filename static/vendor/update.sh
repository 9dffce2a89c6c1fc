#!/usr/bin/env bash
# Copy the browser builds of the libraries pinned in package.json into static/vendor/<name>/
# and rewrite VENDORED.md. The pages load these copies; no CDN is ever used at run time.
#
#   static/vendor/update.sh           refresh the copies (after editing a version in package.json)
#   static/vendor/update.sh --check   exit 1 if the committed copies differ from the registry's
#
# Needs node and npm. Installs into a temporary folder, so no node_modules is left in the repo.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-update}

# name: files to copy, relative to the package folder (the build served to browsers, its source map
# where the build names one, and the licence).
files_of() {
  case "$1" in
    cytoscape) echo "dist/cytoscape.min.js LICENSE" ;;
    # Its browser build takes memoize and throttle from window._, hence lodash below.
    cytoscape-edgehandles) echo "cytoscape-edgehandles.js LICENSE" ;;
    lodash) echo "lodash.min.js LICENSE" ;;
    # Auto-layout on demand; the build bundles dagre itself.
    cytoscape-dagre) echo "dist/cytoscape-dagre.min.js dist/cytoscape-dagre.min.js.map LICENSE" ;;
    # The model check's dependency graph (static/js/model-graph.js) is laid out by dagre itself.
    @dagrejs/dagre) echo "dist/dagre.min.js dist/dagre.min.js.map dist/dagre.min.js.LEGAL.txt LICENSE" ;;
    # Django's manifest storage follows the sourceMappingURL line, so the map must be there too.
    chart.js) echo "dist/chart.umd.min.js dist/chart.umd.min.js.map LICENSE.md" ;;
    *) echo "update.sh: no file list for $1" >&2; exit 2 ;;
  esac
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$work/"
(cd "$work" && npm install --no-save --no-package-lock --ignore-scripts --no-audit --no-fund --loglevel=error)

out="$work/out"
mkdir -p "$out"
names=$(node -e 'console.log(Object.keys(require(process.argv[1]).dependencies).join(" "))' "$here/package.json")

{
  echo "# Vendored browser libraries"
  echo
  echo "Written by \`update.sh\` from the versions pinned in \`package.json\`; do not edit by hand."
  echo "Each library is copied unmodified from its npm package into \`static/vendor/<name>/\`."
  echo
  echo "lodash is here only because the browser build of cytoscape-edgehandles takes \`memoize\` and"
  echo "\`throttle\` from \`window._\`: load \`cytoscape\`, then \`lodash\`, then \`cytoscape-edgehandles\`."
  echo
  echo "| name | version | licence | files (from the npm package) | sha256 of the first file |"
  echo "| --- | --- | --- | --- | --- |"
} >"$out/VENDORED.md"

for name in $names; do
  pkg="$work/node_modules/$name"
  version=$(node -e 'console.log(require(process.argv[1]).version)' "$pkg/package.json")
  licence=$(node -e 'console.log(require(process.argv[1]).license)' "$pkg/package.json")
  wanted=$(node -e 'console.log(require(process.argv[1]).dependencies[process.argv[2]])' "$here/package.json" "$name")
  if [ "$version" != "$wanted" ]; then
    echo "update.sh: $name installed as $version, package.json pins $wanted" >&2
    exit 1
  fi
  mkdir -p "$out/$name"
  listed=""
  for f in $(files_of "$name"); do
    cp "$pkg/$f" "$out/$name/"
    listed="$listed\`$f\` "
  done
  first=$(files_of "$name" | cut -d' ' -f1)
  sum=$(sha256sum "$pkg/$first" | cut -d' ' -f1)
  echo "| $name | $version | $licence | ${listed% } | \`$sum\` |" >>"$out/VENDORED.md"
done

if [ "$mode" = "--check" ]; then
  status=0
  for name in $names; do
    diff -r "$out/$name" "$here/$name" || status=1
  done
  diff "$out/VENDORED.md" "$here/VENDORED.md" || status=1
  if [ $status -eq 0 ]; then echo "vendored copies match package.json"; fi
  exit $status
fi

for name in $names; do
  rm -rf "${here:?}/$name"
  mkdir -p "$(dirname "$here/$name")"  # a scoped package (@scope/name) sits one folder deeper
  cp -r "$out/$name" "$here/$name"
done
cp "$out/VENDORED.md" "$here/VENDORED.md"
echo "copied: $names"
