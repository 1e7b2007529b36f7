import fs from 'node:fs';
import { text } from 'node:stream/consumers';
import type { Command } from 'commander';
import type { DependencyContainer } from 'tsyringe';
import { CLUSTERS } from '../platform/clusters/clusters';
import { BulkProvisioner, MoveLeftovers, SpareSchemas, TenantMover, TenantPlacement } from '../tenancy';
import { CliError, progress, runWithContainer } from './cli-runtime';

const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** Tenants and spare schemas per cluster, as `tenant clusters` prints them. */
export async function clusterLines(c: DependencyContainer): Promise<string[]> {
  const clusters = c.resolve(CLUSTERS);
  const counts = await c.resolve(TenantPlacement).counts();
  const spares = c.resolve(SpareSchemas);
  const lines = ['CLUSTER  TENANTS  SPARES'];
  for (const name of clusters.names) lines.push(`${name}  ${counts.get(name) ?? 0}  ${await spares.count(name)}`);
  return lines;
}

function readLines(file: string): Promise<unknown[]> {
  const input = file === '-' ? process.stdin : fs.createReadStream(file);
  return text(input).then(
    (body) =>
      body
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .map((l, i) => {
          try {
            return JSON.parse(l);
          } catch (err) {
            throw new CliError(`${file}:${i + 1}: not JSON: ${(err as Error).message}`);
          }
        }),
    (err: Error) => {
      throw new CliError(`cannot read ${file}: ${err.message}`);
    },
  );
}

/** `move`, `sweep-moves`, `clusters`, `spares` and `create-many` (src/tenancy/tenants/placement/README.md). */
export function registerPlacementCommands(program: Command): void {
  program
    .command('move')
    .description('Move a tenant to another PostgreSQL cluster while it keeps serving (reads throughout, writes pause for a moment)')
    .argument('<slug>')
    .requiredOption('--to <cluster>', 'the cluster to move to (main, or a name of TENANT_DATABASE_URLS)')
    .option('--drop-after <seconds>', 'keep the old (fenced) copy this long after the switch', '15')
    .action((slug: string, o: { to: string; dropAfter: string }) =>
      runWithContainer(async (c) => {
        const seconds = Number(o.dropAfter);
        if (!Number.isFinite(seconds) || seconds < 0) throw new CliError('--drop-after must be a number of seconds');
        const r = await c.resolve(TenantMover).move(slug, o.to, { onProgress: progress, dropAfterMs: seconds * 1000 });
        out(
          `${r.slug} moved from ${r.from} to ${r.to}: ${r.tables} tables, ${r.rows} rows (${r.changedRows} copied again), write pause ${r.writePauseMs} ms, ${r.seconds.toFixed(1)} s in all`,
        );
      }),
    );

  program
    .command('sweep-moves')
    .description('Clean up what killed movers left (capture triggers, partial copies, old copies); the workers do it every minute')
    .action(() =>
      runWithContainer(async (c) => {
        const lines = await c.resolve(MoveLeftovers).sweep(0);
        out(lines.length ? lines.join('\n') : 'nothing left behind by moves');
      }),
    );

  program
    .command('clusters')
    .description('List the PostgreSQL clusters with their tenants and spare schemas')
    .action(() => runWithContainer(async (c) => out((await clusterLines(c)).join('\n'))));

  program
    .command('spares')
    .description('Create spare (pre-migrated) schemas until each cluster has --count (default TENANT_SPARE_SCHEMAS)')
    .option('--count <n>', 'spares wanted per cluster')
    .option('--cluster <name>', 'only this cluster')
    .option('--concurrency <n>', 'schemas created at once', '2')
    .action((o: { count?: string; cluster?: string; concurrency: string }) =>
      runWithContainer(async (c) => {
        const spares = c.resolve(SpareSchemas);
        const names = o.cluster ? [c.resolve(TenantPlacement).checked(o.cluster)] : c.resolve(CLUSTERS).names;
        const target = o.count === undefined ? undefined : Number(o.count);
        if (target !== undefined && !(Number.isInteger(target) && target >= 0)) throw new CliError('--count must be a whole number');
        for (const name of names) {
          const t0 = Date.now();
          const made = await spares.topUp(name, target, Number(o.concurrency) || 2, (n, of) => progress(`${name}: ${n}/${of} spare schemas made`));
          progress(`${name}: ${made} spare schemas made in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        }
        out((await clusterLines(c)).join('\n'));
      }),
    );

  program
    .command('create-many')
    .description('Create many empty tenants from JSON lines {"slug", "name", "hosts": [...], "cluster"?} (fast with spare schemas)')
    .argument('<file>', 'the JSON lines ("-" reads stdin)')
    .option('--concurrency <n>', 'tenants created at once', '4')
    .action((file: string, o: { concurrency: string }) =>
      runWithContainer(async (c) => {
        const lines = await readLines(file);
        const r = await c.resolve(BulkProvisioner).createMany(lines, { concurrency: Number(o.concurrency) || 4, onProgress: progress });
        for (const f of r.failed) progress(`${f.slug}: FAILED ${f.error}`);
        out(
          JSON.stringify({
            created: r.created,
            failed: r.failed.length,
            from_spares: r.fromSpares,
            seconds: r.seconds,
            per_second: Number(r.perSecond.toFixed(1)),
          }),
        );
        if (r.failed.length) process.exitCode = 1;
      }),
    );
}
