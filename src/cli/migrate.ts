import 'reflect-metadata';
import { Command } from 'commander';
import { ENV, KNEX, REDIS } from '../platform/tokens';
import { TENANT_CHANGED_CHANNEL } from '../platform/tenant-scope/tenant-resolver';
import { migrateAll } from '../platform/migrations/migrate-all';
import { CLUSTERS } from '../platform/clusters/clusters';
import { LOCAL_SERVICES_HINT, progress, runWithContainer } from './cli-runtime';

/** `npm run migrate`: the platform schema, then every tenant; exit code 1 when any failed. */
const program = new Command('migrate')
  .description('Migrate the platform schema, then every tenant schema (one transaction per tenant, MIGRATE_CONCURRENCY at once)')
  .addHelpText('after', `\n${LOCAL_SERVICES_HINT}\n`)
  .action(() =>
    runWithContainer(async (c) => {
      // running API processes drop the tenant from their caches: a failed one answers 503 at once, a recovered one is served again
      const onTenantStateChange = async (id: number) =>
        void (await c
          .resolve(REDIS)
          .publish(TENANT_CHANGED_CHANNEL, String(id))
          .catch(() => 0));
      const report = await migrateAll(c.resolve(KNEX), {
        concurrency: c.resolve(ENV).MIGRATE_CONCURRENCY,
        onProgress: progress,
        onTenantStateChange,
        clusters: c.resolve(CLUSTERS),
      });
      const failed = report.tenants.filter((t) => t.error);
      progress(
        failed.length
          ? `${failed.length} of ${report.tenants.length} tenants FAILED: ${failed.map((t) => t.slug).join(', ')}`
          : `${report.tenants.length} tenants up to date`,
      );
      if (!report.ok) process.exitCode = 1;
    }),
  );

// an error rejects the promise: Node prints it and exits 1, as a CLI should
void program.parseAsync(process.argv);
