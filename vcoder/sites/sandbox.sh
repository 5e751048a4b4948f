#!/bin/sh
# Installs and builds one Bolt project inside the namespaces vcoder.sites.build made (new mount, network and PID
# namespaces; still root here). Inputs from the environment: SRC (the project's files, read only), OUT (where the
# results go: dist/, package.json, install.log, build.log, times), CACHE (the npm cache, read only), WORK (an empty
# mount point), the limits (SIZE_MB, AS_KB, NPROC, FSIZE_KB, HEAP_MB), PACKAGES (extra install specs, one a line),
# HIDDEN (folders replaced by an empty tmpfs: people's files, the host's sockets), RUN_AS (uid:gid), PART (a unique
# token), INSTALL / BUILD (1 to run the stage), STORE (a folder of installed node_modules trees, one per dependency
# set) and MODULES_KEY (this project's set; empty: none). Only this script runs as root; npm and vite run as RUN_AS.
set -euf  # -f: no globbing, so a package spec such as "*" stays one word
mount -t tmpfs -o "size=${SIZE_MB}m,mode=0755" vcoder-build "$WORK"
mkdir "$WORK/project" "$WORK/home" "$WORK/cache" "$WORK/upper" "$WORK/overlay-work" "$WORK/out"
# the cache is read through an overlay: npm rewrites index buckets as it reads them, and the writes stay in the tmpfs
mount -t overlay vcoder-npm -o "lowerdir=$CACHE,upperdir=$WORK/upper,workdir=$WORK/overlay-work" "$WORK/cache"
find "$WORK/cache" -type d -exec chmod 0777 {} +
mount --bind "$OUT" "$WORK/out"
if [ -n "$MODULES_KEY" ]; then mkdir "$WORK/store" && mount --bind "$STORE" "$WORK/store"; fi
cp -R "$SRC/." "$WORK/project/"
chmod 0700 "$WORK/out"
# what it may read leaves out people's and projects' files and the host's sockets (/run): each is an empty tmpfs (the
# mounts above into $WORK are made already); a link (/var/run -> /run) is its target's business
for dir in $HIDDEN; do
  if [ -d "$dir" ] && [ ! -L "$dir" ]; then mount -t tmpfs -o size=1m,mode=0755 vcoder-hidden "$dir"; fi
done
# the only places the builder may write are the project and its home: every world-writable folder is a fresh tmpfs
# (which also hides the host's sockets and files in them)
for dir in /tmp /var/tmp /dev/shm; do
  if [ -d "$dir" ] && [ ! -L "$dir" ]; then mount -t tmpfs -o size=16m,mode=1777 vcoder-scratch "$dir"; fi
done
# a /proc of this PID namespace (this shell is its pid 1), not the host's; hidepid=2: each user sees only its own
# processes, so the builder cannot even read the command line of the root shell that runs it
mount -t proc -o nosuid,nodev,noexec,hidepid=2 vcoder-proc /proc
uid=${RUN_AS%%:*}
gid=${RUN_AS##*:}
chown -R "$uid:$gid" "$WORK/project" "$WORK/home"
cd "$WORK/project"

unprivileged() {
  setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all \
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$WORK/home" LANG=C.UTF-8 NO_COLOR=1 FORCE_COLOR=0 NODE_OPTIONS="--max-old-space-size=$HEAP_MB --disable-wasm-trap-handler" \
    npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false npm_config_logs_max=0 \
    npm_config_cache="$WORK/cache" npm_config_offline=true npm_config_ignore_scripts=true CI=1 \
    prlimit --as="$((AS_KB * 1024))" --nproc="$NPROC" --fsize="$((FSIZE_KB * 1024))" --core=0 -- "$@"
}

now() { date +%s.%N; }
status=0
t0=$(now)
saved="$WORK/store/$MODULES_KEY"
if [ "$INSTALL" = 1 ] && [ -n "$MODULES_KEY" ] && [ -d "$saved" ]; then
  # this dependency set was installed before (from the same cache, before any project code ran): an overlay of it
  mkdir "$WORK/modules-upper" "$WORK/modules-work" node_modules
  chown "$uid:$gid" "$WORK/modules-upper" node_modules
  mount -t overlay vcoder-modules -o "lowerdir=$saved,upperdir=$WORK/modules-upper,workdir=$WORK/modules-work" \
    node_modules
  echo "reused the installed dependencies of an identical package.json" >"$WORK/out/install.log"
  INSTALL=0
fi
if [ "$INSTALL" = 1 ]; then
  # shellcheck disable=SC2086
  unprivileged npm install --offline --ignore-scripts --no-audit --no-fund --loglevel=error $PACKAGES \
    >"$WORK/out/install.log" 2>&1 || status=10
  if [ "$status" = 0 ] && [ -n "$MODULES_KEY" ] && [ -d node_modules ] && [ ! -e "$saved" ]; then
    # kept before the build runs any of the project's code (the install ran none: --ignore-scripts)
    cp -R node_modules "$saved.part.$PART" && mv -T "$saved.part.$PART" "$saved" || rm -rf "$saved.part.$PART"
  fi
fi
cp -P package.json "$WORK/out/package.json" 2>/dev/null || true  # -P: a link is copied as a link (and then refused)
t1=$(now)
if [ "$status" = 0 ] && [ "$BUILD" = 1 ]; then
  if [ ! -x node_modules/.bin/vite ]; then
    echo "vite is not installed: add \"vite\" to the devDependencies of package.json" >"$WORK/out/build.log"
    status=20
  else
    unprivileged node_modules/.bin/vite build --base ./ --outDir dist --emptyOutDir --logLevel warn \
      >"$WORK/out/build.log" 2>&1 || status=20
  fi
  # whatever the build left running is stopped before anything is copied out (the uid is this build's alone)
  setpriv --reuid="$uid" --regid="$gid" --clear-groups kill -KILL -1 2>/dev/null || true
  if [ "$status" = 0 ] && { [ -L dist ] || [ ! -d dist ]; }; then
    echo "dist/ is not a folder the build wrote" >>"$WORK/out/build.log"
    status=20
  fi
  if [ "$status" = 0 ] && [ ! -f dist/index.html ]; then
    echo "vite build exited without writing dist/index.html (is index.html at the project root?)" >>"$WORK/out/build.log"
    status=20
  fi
  if [ "$status" = 0 ]; then cp -RP dist "$WORK/out/dist"; fi
fi
t2=$(now)
echo "$t0 $t1 $t2" >"$WORK/out/times"
exit "$status"
