#!/usr/bin/env bash
# A throwaway PostgreSQL 15 + PostGIS 3 server for benchmarks and tests: its own data folder,
# 127.0.0.1 on a free port, nothing shared with a system cluster.
#
#   scripts/postgis.sh install     install the Debian packages (server, PostGIS, client, libpq) if missing
#   scripts/postgis.sh start DIR   install, initdb DIR, start;
#                                  prints a libpq connection string (also in DIR/conninfo)
#   scripts/postgis.sh replica PRIMARY_DIR DIR
#                                  a hot standby of the server started in PRIMARY_DIR (streaming
#                                  replication on loopback): pg_basebackup into DIR, start;
#                                  prints its connection string (also in DIR/conninfo)
#   scripts/postgis.sh crash DIR   SIGKILL the server and its backends at once (a power cut, as
#                                  far as the database can tell; for the tests)
#   scripts/postgis.sh restart DIR start the server again (after a crash: crash recovery)
#   scripts/postgis.sh stop DIR    stop the server and delete DIR
#
# initdb refuses to run as root, so as root the server runs as the `postgres` user.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=/usr/lib/postgresql/15/bin
command=${1:?usage: postgis.sh install | start|stop|crash|restart DIR | replica PRIMARY_DIR DIR}
if [ "$command" = install ]; then
  exec "$here/bootstrap.sh" postgresql-15 postgresql-15-postgis-3 postgresql-client-15 libpq-dev
fi
dir=${2:?usage: postgis.sh start|stop|crash|restart DIR | replica PRIMARY_DIR DIR}
dir=$(realpath -m "$dir")
# Starts the server with no file descriptor of ours beyond 0-2: a daemon that keeps one open
# keeps it for its lifetime, and Foundation's Process (the Swift tests run this script with it)
# sees its child end only when a socket it hands the child closes.
detached() {
  ( for fd in /proc/self/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done; exec "$@" )
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# As root, the server's commands run as the postgres user, from / : that user may not enter
# the caller's folder (a clone made by mktemp is mode 700), and each command run from there said
# "could not change directory … Permission denied". So DIR is made absolute first.
as_owner=()
if [ "$(id -u)" -eq 0 ]; then as_owner=(runuser -u postgres -- env -C /); fi

case "$command" in
start)
  "$0" install
  mkdir -p "$dir"
  [ ${#as_owner[@]} -gt 0 ] && chown postgres: "$dir"
  "${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
  port=$(free_port)
  # Settings a competent operator of a 2-core, 24 GiB machine would choose; durability left at
  # the defaults (fsync, synchronous_commit on), as GeoSpend's SQLite file keeps its own. JIT off:
  # it added ~0.5 s of compilation to the 100k-row hex-grid query and nothing to short queries.
  # TCP only: a Unix socket's path may not pass 107 bytes, and in a test's scratch folder under
  # make test's TMPDIR it did (the server refused to start, in CI only).
  # max_locks_per_transaction: a fresh database's migrations run in one transaction and lock
  # every table and index they create (26 migrations by now); with make test's many fresh
  # databases at once, the default 64 per connection ran out of shared lock slots ("out of
  # shared memory", CI of 4a803fd).
  # max_connections: make test opens stores, psql runs and geospend processes from many tests at
  # once; the default 100 ran out ("sorry, too many clients already", CI of 59c729b, 7 PostGIS
  # cases). A hot standby needs at least its primary's value; pg_basebackup copies this file.
  # shared_preload_libraries: PostGIS loaded once by the postmaster, so a new connection does not
  # load it (and GEOS and PROJ under it) again on its first spatial call; here a connection
  # running one PostGIS function took 18 ms of the server's CPU without it and 8 ms with it
  # (50 psql runs each way); the tests open a connection for every store and every psql run.
  cat >>"$dir/data/postgresql.conf" <<EOF
shared_preload_libraries = 'postgis-3'
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = ''
shared_buffers = 2GB
work_mem = 64MB
maintenance_work_mem = 1GB
max_wal_size = 4GB
jit = off
max_locks_per_transaction = 1024
max_connections = 400
EOF
  # POSTGIS_DURABILITY=off (make test's server, thrown away afterwards): no fsync, no full-page
  # images. What is lost is what an operating-system crash would lose; a killed server loses
  # nothing (committed WAL is in the kernel's page cache), which is what the tests do to it.
  # Measured on a loaded 2-core machine: CREATE DATABASE from a PostGIS template 0.70 → 0.21 s,
  # DROP DATABASE 1.8 → 0.19 s. Benchmarks keep the defaults.
  if [ "${POSTGIS_DURABILITY:-on}" = off ]; then
    printf 'fsync = off\nfull_page_writes = off\n' >>"$dir/data/postgresql.conf"
  fi
  detached "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
  conninfo="host=127.0.0.1 port=$port user=postgres dbname=postgres"
  psql "$conninfo" -qAt -c "CREATE EXTENSION postgis" >/dev/null
  echo "$conninfo" | tee "$dir/conninfo"
  ;;
replica)
  # initdb's pg_hba.conf already trusts replication connections from 127.0.0.1, and PostgreSQL
  # 15's defaults (wal_level replica, max_wal_senders 10, hot_standby on) allow a hot standby.
  primary=$(cat "$dir/conninfo")
  dir=${3:?usage: postgis.sh replica PRIMARY_DIR DIR}
  dir=$(realpath -m "$dir")
  mkdir -p "$dir"
  [ ${#as_owner[@]} -gt 0 ] && chown postgres: "$dir"
  # -R writes standby.signal and primary_conninfo; -X stream copies the WAL written meanwhile;
  # -c fast: an immediate checkpoint (the default spread one took two minutes here).
  "${as_owner[@]}" "$bin/pg_basebackup" -d "$primary" -D "$dir/data" -R -X stream -c fast >"$dir/basebackup.log" 2>&1
  port=$(free_port)
  # The copied postgresql.conf names the primary's port; a later line wins.
  echo "port = $port" >>"$dir/data/postgresql.conf"
  detached "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
  conninfo="host=127.0.0.1 port=$port user=postgres dbname=postgres"
  echo "$conninfo" | tee "$dir/conninfo"
  ;;
crash)
  postmaster=$(head -1 "$dir/data/postmaster.pid")
  # The backends first, then the postmaster: none of them gets to write another byte.
  kill -STOP "$postmaster"
  pkill -KILL -P "$postmaster" || true
  kill -KILL "$postmaster"
  while kill -0 "$postmaster" 2>/dev/null; do sleep 0.05; done
  ;;
restart)
  detached "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
  ;;
stop)
  if [ -f "$dir/data/postmaster.pid" ]; then
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: postgis.sh install | start|stop|crash|restart DIR | replica PRIMARY_DIR DIR" >&2
  exit 2
  ;;
esac
