#!/bin/sh
# install.sh: installs a ctxmon release binary, checksum verified, without Rust.
#
#   sh install.sh [--prefix DIR] [--target TRIPLE] RELEASE_URL
#   sh install.sh [--prefix DIR] --archive FILE [--sums FILE]
#
# RELEASE_URL is the base URL of a release's assets (the folder holding SHA256SUMS and the
# ctxmon-<version>-<target>.tar.gz archives); a local folder works too. With --archive the
# archive is already here and SHA256SUMS is looked for beside it (or given with --sums).
# The archive's SHA-256 must match its line in SHA256SUMS and the binary must run on this
# machine before anything is written; then it replaces DIR/bin/ctxmon (default DIR:
# ~/.local) in one rename. `cargo xtask dist` writes this file next to the archives.
set -eu

prefix=${HOME:-}/.local
archive=""
sums=""
url=""
target=""

say() { printf 'install.sh: %s\n' "$*"; }
fail() {
    printf 'install.sh: error: %s\n' "$*" >&2
    exit 1
}
usage() {
    cat <<'EOF'
usage: sh install.sh [--prefix DIR] [--target TRIPLE] RELEASE_URL
       sh install.sh [--prefix DIR] --archive FILE [--sums FILE]

Installs DIR/bin/ctxmon (DIR defaults to ~/.local) from a release: RELEASE_URL is the folder
(http(s) URL or local path) holding SHA256SUMS and the ctxmon-<version>-<target>.tar.gz
archives. The archive's checksum is verified against SHA256SUMS before anything is installed.
EOF
}

while [ $# -gt 0 ]; do
    case $1 in
        --prefix)
            [ $# -ge 2 ] || fail "--prefix needs a folder"
            prefix=$2
            shift 2
            ;;
        --archive)
            [ $# -ge 2 ] || fail "--archive needs a file"
            archive=$2
            shift 2
            ;;
        --sums)
            [ $# -ge 2 ] || fail "--sums needs a file"
            sums=$2
            shift 2
            ;;
        --target)
            [ $# -ge 2 ] || fail "--target needs a target triple"
            target=$2
            shift 2
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        -*) fail "unknown option $1 (see --help)" ;;
        *)
            [ -z "$url" ] || fail "one release URL only (got $url and $1)"
            url=$1
            shift
            ;;
    esac
done

[ -n "$prefix" ] || fail "no install folder: HOME is not set; pass --prefix DIR"
if [ -n "$archive" ] && [ -n "$url" ]; then
    fail "give either a release URL or --archive FILE, not both"
fi
if [ -z "$archive" ] && [ -z "$url" ]; then
    usage >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ctxmon-install.XXXXXX") || fail "cannot create a temporary folder"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The SHA-256 of a file, in lower-case hex: coreutils on Linux, shasum on macOS.
sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    elif command -v shasum >/dev/null 2>&1; then
        shasum -a 256 "$1" | cut -d' ' -f1
    else
        fail "neither sha256sum nor shasum is installed; cannot verify the download"
    fi
}

# Copies release asset $1 into $2: from a local folder, or over https with curl or wget.
fetch() {
    case $url in
        http://* | https://*)
            if command -v curl >/dev/null 2>&1; then
                curl --proto '=https,http' -fsSL "${url%/}/$1" -o "$2" || fail "cannot download ${url%/}/$1"
            elif command -v wget >/dev/null 2>&1; then
                wget -q -O "$2" "${url%/}/$1" || fail "cannot download ${url%/}/$1"
            else
                fail "neither curl nor wget is installed; download the archive and use --archive FILE"
            fi
            ;;
        *)
            [ -f "${url%/}/$1" ] || fail "no file ${url%/}/$1"
            cp "${url%/}/$1" "$2"
            ;;
    esac
}

# The release target for this machine, as the archives name it.
detect_target() {
    case $(uname -m) in
        x86_64 | amd64) arch=x86_64 ;;
        aarch64 | arm64) arch=aarch64 ;;
        *) fail "no ctxmon release for a $(uname -m) processor; build it with cargo install" ;;
    esac
    case $(uname -s) in
        Linux)
            # A musl system (Alpine) cannot run the glibc build.
            if ls /lib/ld-musl-* >/dev/null 2>&1; then
                echo "$arch-unknown-linux-musl"
            else
                echo "$arch-unknown-linux-gnu"
            fi
            ;;
        Darwin) echo "$arch-apple-darwin" ;;
        *) fail "no ctxmon release for $(uname -s); build it with cargo install" ;;
    esac
}

if [ -n "$url" ]; then
    fetch SHA256SUMS "$work/SHA256SUMS"
    sums=$work/SHA256SUMS
    [ -n "$target" ] || target=$(detect_target)
    name=$(awk -v suffix="-$target.tar.gz" \
        '{ n = $2; sub(/^\*/, "", n) } n ~ /^ctxmon-/ && substr(n, length(n) - length(suffix) + 1) == suffix { print n; exit }' \
        "$sums")
    [ -n "$name" ] || fail "the release has no archive for $target (SHA256SUMS lists none)"
    fetch "$name" "$work/$name"
    archive=$work/$name
else
    [ -f "$archive" ] || fail "no archive at $archive"
    name=$(basename "$archive")
    if [ -z "$sums" ]; then
        sums=$(dirname "$archive")/SHA256SUMS
        [ -f "$sums" ] || fail "no SHA256SUMS beside $archive; pass the release's SHA256SUMS with --sums FILE"
    fi
    [ -f "$sums" ] || fail "no checksum file at $sums"
fi

expected=$(awk -v n="$name" '{ f = $2; sub(/^\*/, "", f) } f == n { print $1; exit }' "$sums")
[ -n "$expected" ] || fail "$sums has no checksum for $name"
actual=$(sha256 "$archive")
if [ "$expected" != "$actual" ]; then
    fail "checksum mismatch for $name: SHA256SUMS says $expected, the file is $actual; nothing was installed"
fi
say "checksum ok: $name"

mkdir "$work/unpacked"
tar -xzf "$archive" -C "$work/unpacked" || fail "cannot unpack $name"
found=""
for candidate in "$work"/unpacked/ctxmon-*/ctxmon; do
    [ -f "$candidate" ] && found=$candidate
done
[ -n "$found" ] || fail "$name holds no ctxmon-*/ctxmon binary"
chmod 755 "$found"
version=$("$found" --version 2>/dev/null) || fail "the binary in $name does not run on this machine (wrong target?); nothing was installed"

bindir=${prefix%/}/bin
mkdir -p "$bindir" || fail "cannot create $bindir"
# Copy next to the destination, then rename: a running ctxmon keeps its old file, and an
# interrupted copy never leaves a half-written binary under the real name.
cp "$found" "$bindir/.ctxmon.install.$$" || fail "cannot write to $bindir"
chmod 755 "$bindir/.ctxmon.install.$$"
mv -f "$bindir/.ctxmon.install.$$" "$bindir/ctxmon" || fail "cannot replace $bindir/ctxmon"
say "installed $version as $bindir/ctxmon"

case ":${PATH:-}:" in
    *":$bindir:"*) ;;
    *)
        say "$bindir is not on your PATH; add it with"
        # shellcheck disable=SC2016 # $PATH is meant literally: the user's shell expands it.
        printf '    export PATH="%s:$PATH"\n' "$bindir"
        say "in ~/.profile (or your shell's rc file), then open a new shell"
        ;;
esac
say "next: $bindir/ctxmon install   (registers the hooks with this binary's path)"
