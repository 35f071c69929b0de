#!/usr/bin/env node
// The `ctxmon` command of the npm package: finds the native binary that npm installed from
// the platform package (an optionalDependency: @ctxmon/<os>-<cpu>[-<libc>]) and runs it.
//
// Node's start-up is almost all of this file's cost, so on its first run it replaces itself
// with a symbolic link to the native binary: every later `ctxmon` or `npx ctxmon` then runs
// the binary directly, without node. Only when it was started through a symbolic link (npm's
// and yarn's node_modules/.bin and global bin links, which the kernel follows): pnpm's shims
// and yarn 2+ run `node <this file>` by name and would hand node the binary. Never on Windows,
// in a read-only folder, or with NPM_CTXMON_KEEP_LAUNCHER set. No install script is involved,
// so --ignore-scripts, pnpm and bun install the same thing. NPM_CTXMON_BINARY names a binary to run instead. (These
// names do not start with CTXMON_: ctxmon reads every CTXMON_* variable as configuration.)
'use strict';

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

// Platform packages by Node's `${process.platform}-${process.arch}`; npm installs only the one
// whose os, cpu and libc match, so the first that resolves is this machine's. xtask's
// dist/platforms.rs holds the same table (a test keeps them equal).
const PACKAGES = {
  'linux-x64': ['@ctxmon/linux-x64-gnu', '@ctxmon/linux-x64-musl'],
  'linux-arm64': ['@ctxmon/linux-arm64-gnu', '@ctxmon/linux-arm64-musl'],
  'darwin-x64': ['@ctxmon/darwin-x64'],
  'darwin-arm64': ['@ctxmon/darwin-arm64'],
};

function nativeBinary() {
  if (process.env.NPM_CTXMON_BINARY) return process.env.NPM_CTXMON_BINARY;
  const key = `${process.platform}-${process.arch}`;
  for (const name of PACKAGES[key] || []) {
    let manifest;
    try {
      manifest = require.resolve(`${name}/package.json`);
    } catch {
      continue;
    }
    const binary = path.join(path.dirname(manifest), 'bin', 'ctxmon');
    if (fs.existsSync(binary)) return binary;
  }
  return null;
}

// Replaces this file by a relative link to the binary, in one rename; any failure leaves the
// launcher as it is, which still works.
function linkInPlace(binary) {
  if (process.platform === 'win32' || process.env.NPM_CTXMON_KEEP_LAUNCHER) return;
  if (process.env.NPM_CTXMON_BINARY) return;
  try {
    if (!fs.lstatSync(process.argv[1]).isSymbolicLink()) return;
  } catch {
    return;
  }
  const self = __filename;
  const temp = `${self}.link-${process.pid}`;
  try {
    fs.symlinkSync(path.relative(path.dirname(self), binary), temp);
    fs.renameSync(temp, self);
  } catch {
    try {
      fs.unlinkSync(temp);
    } catch {
      // Nothing was created.
    }
  }
}

const args = process.argv.slice(2);
const binary = nativeBinary();
if (binary === null) {
  process.stderr.write(
    `ctxmon: no ctxmon binary for ${process.platform}-${process.arch} was installed ` +
      '(npm skipped the optional platform package, or there is none for this machine); ' +
      'reinstall with optional dependencies, or install from a release archive or with cargo\n',
  );
  // A hook must never fail a Claude Code session: exit 0 for `ctxmon hooks …`.
  process.exit(args[0] === 'hooks' ? 0 : 1);
}

linkInPlace(binary);
const run = spawnSync(binary, args, { stdio: 'inherit' });
if (run.error) {
  process.stderr.write(`ctxmon: cannot run ${binary}: ${run.error.message}\n`);
  process.exit(args[0] === 'hooks' ? 0 : 1);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status === null ? 1 : run.status);
