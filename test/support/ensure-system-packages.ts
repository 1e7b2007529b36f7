import { spawnSync } from 'node:child_process';

/**
 * The suite needs a few Debian packages (redis-server and redis-cli; chromium for browser tests).
 * On a fresh machine they are installed here, so that `npm test` alone is enough.
 */
const NEEDED: { command: string; pkg: string }[] = [
  { command: 'redis-server', pkg: 'redis-server' },
  // redis-cli --cluster create builds the Redis Cluster of the scale-out tests (redis-server depends on it)
  { command: 'redis-cli', pkg: 'redis-tools' },
  { command: 'chromium', pkg: 'chromium' },
];

const missing = NEEDED.filter(({ command }) => spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0);
if (missing.length > 0) {
  const pkgs = missing.map((m) => m.pkg);
  process.stdout.write(`installing Debian packages: ${pkgs.join(' ')}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const r = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
  if (r.status !== 0) {
    process.stderr.write(`could not install ${pkgs.join(' ')} (run as root, or install them yourself)\n`);
    process.exit(1);
  }
}
