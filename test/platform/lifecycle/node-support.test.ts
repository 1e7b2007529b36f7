import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeEndOfLifeWarning } from '../../../src/platform/lifecycle/node-support';

const ROOT = path.resolve(__dirname, '../../..');

describe('Node.js release lines', () => {
  it('warns on a line past its end of life and not on a maintained one', () => {
    const day = new Date('2026-11-27T12:00:00Z');
    expect(nodeEndOfLifeWarning('v20.20.2', day)).toMatch(/Node\.js 20 reached its end of life on 2026-04-30/);
    expect(nodeEndOfLifeWarning('v20.20.2', new Date('2026-04-30T12:00:00Z'))).toBeNull();
    for (const v of ['v22.12.0', 'v24.21.0', 'v26.1.0']) expect(nodeEndOfLifeWarning(v, day)).toBeNull();
    expect(nodeEndOfLifeWarning('v22.12.0', new Date('2027-05-01T00:00:00Z'))).toMatch(/Node\.js 22/);
    expect(nodeEndOfLifeWarning('v18.20.0', day)).toMatch(/not supported/);
  });

  it('the project pins the line CI proves: .nvmrc says 24 and .ci/run runs on a pinned 24', () => {
    expect(fs.readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim()).toBe('24');
    expect(fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8')).toMatch(/NODE_VERSION=24\.\d+\.\d+/);
  });

  // The system Node of these machines is 20: a process started on it says so in its log.
  const system = '/usr/bin/node';
  const systemIs20 = fs.existsSync(system) && execFileSync(system, ['-v'], { encoding: 'utf8' }).startsWith('v20.');
  it.runIf(systemIs20)('a start on Node 20 prints the end-of-life warning', () => {
    const out = execFileSync(
      system,
      ['--import', 'tsx', '-e', "require('./src/platform/lifecycle/node-support').warnIfNodeEndOfLife({ warn: (m) => process.stdout.write(m) })"],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(out).toMatch(/Node\.js 20 reached its end of life/);
  });
});
