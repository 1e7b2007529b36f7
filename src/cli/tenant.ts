import 'reflect-metadata';
import fs from 'node:fs';
import { Command } from 'commander';
import type { DependencyContainer } from 'tsyringe';
import { TenantAdminService, type TenantSummary } from '../tenants/tenant-admin.service';
import { CliError, LOCAL_SERVICES_HINT, progress, runWithContainer } from './cli-runtime';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const admin = (c: DependencyContainer) => c.resolve(TenantAdminService);
const out = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

// a tenant whose migration failed answers 503: the operator must see it in every listing
const state = (t: TenantSummary) => (t.migration_failed_at ? `${t.status}, migration failed` : t.status);

function describe(t: TenantSummary): string {
  return `${t.slug}  "${t.name}"  ${state(t)}  hosts: ${t.hosts.join(', ')}  schema ${t.schema} @ ${t.schema_version ?? '-'}  ${mib(t.schema_size_bytes)}`;
}

function table(rows: TenantSummary[]): string {
  const head = ['SLUG', 'NAME', 'STATUS', 'HOSTS', 'SCHEMA VERSION', 'SIZE'];
  const cells = rows.map((t) => [t.slug, t.name, state(t), t.hosts.join(','), t.schema_version ?? '-', mib(t.schema_size_bytes)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  return [head, ...cells].map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

const program = new Command('tenant')
  .description('Operate tenants: create, import, export, hosts, list, suspend/resume, delete')
  .addHelpText('after', `\n${LOCAL_SERVICES_HINT}\nThe same operations are available over HTTP under /platform (see README "Operating tenants").\n`)
  .showHelpAfterError();

program
  .command('create')
  .description('Create an empty tenant with its schema migrated')
  .argument('<slug>', 'lowercase letters, digits and -, starting with a letter (also names the schema t_<slug>)')
  .requiredOption('--name <name>', 'display name')
  .requiredOption('--host <host>', 'a host name the tenant answers on (repeat for more)', collect)
  .action((slug: string, o: { name: string; host: string[] }) =>
    runWithContainer(async (c) => out(describe(await admin(c).create({ slug, name: o.name, hosts: o.host }, progress)))),
  );

program
  .command('import')
  .description('Create a tenant from a tenant-import/1 document (one transaction: all or nothing)')
  .argument('<file>', 'the JSON document ("-" reads stdin)')
  .option('--slug <slug>', "use this slug instead of the document's")
  .option('--host <host>', "use these hosts instead of the document's (repeat for more)", collect)
  .action((file: string, o: { slug?: string; host?: string[] }) =>
    runWithContainer(async (c) => {
      let doc: unknown;
      try {
        doc = JSON.parse(fs.readFileSync(file === '-' ? 0 : file, 'utf8'));
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
      }
      progress(`importing ${file}`);
      out(describe(await admin(c).import(doc, { slug: o.slug, hosts: o.host, onProgress: progress })));
    }),
  );

program
  .command('export')
  .description('Write a tenant as a tenant-import/1 document (with password hashes and, unless --no-secrets, secret config items)')
  .argument('<slug>')
  .option('--out <file>', 'write to this file instead of stdout')
  .option('--no-secrets', 'leave secret config items (api.oauth.secret) out')
  .action((slug: string, o: { out?: string; secrets: boolean }) =>
    runWithContainer(async (c) => {
      const doc = await admin(c).export(slug, { secrets: o.secrets });
      const text = `${JSON.stringify(doc, null, 2)}\n`;
      if (o.out) {
        // The document holds password hashes (and secrets): readable by the owner only.
        fs.writeFileSync(o.out, text, { mode: 0o600 });
        progress(`${slug}: ${doc.persons.length} persons, ${doc.competences.length} top-level competences, ${doc.events.length} top-level events written to ${o.out}`);
      } else process.stdout.write(text);
    }),
  );

const hosts = program.command('hosts').description("Add or remove a tenant's host names");
hosts
  .command('add')
  .description('Let the tenant answer on another host name')
  .argument('<slug>')
  .argument('<host>')
  .action((slug: string, host: string) => runWithContainer(async (c) => out(describe(await admin(c).addHost(slug, host)))));
hosts
  .command('remove')
  .description('Stop answering on a host name (the last host cannot be removed)')
  .argument('<slug>')
  .argument('<host>')
  .action((slug: string, host: string) => runWithContainer(async (c) => out(describe(await admin(c).removeHost(slug, host)))));

program
  .command('list')
  .description('List tenants with status, hosts, schema version and size')
  .option('--json', 'print JSON instead of a table')
  .action((o: { json?: boolean }) =>
    runWithContainer(async (c) => {
      const rows = await admin(c).list();
      out(o.json ? JSON.stringify(rows, null, 2) : rows.length ? table(rows) : 'no tenants');
    }),
  );

program
  .command('suspend')
  .description('Suspend a tenant: every request to it answers 423 until resumed (data is kept)')
  .argument('<slug>')
  .action((slug: string) => runWithContainer(async (c) => out(describe(await admin(c).suspend(slug)))));

program
  .command('resume')
  .description('Resume a suspended tenant')
  .argument('<slug>')
  .action((slug: string) => runWithContainer(async (c) => out(describe(await admin(c).resume(slug)))));

program
  .command('delete')
  .description("Delete a tenant for good: drops its schema, platform rows, Redis keys (sessions, ...) and queued jobs")
  .argument('<slug>')
  .option('--yes-delete-everything', 'confirm; without it nothing is deleted')
  .action((slug: string, o: { yesDeleteEverything?: boolean }) =>
    runWithContainer(async (c) => {
      if (!o.yesDeleteEverything) {
        throw new CliError(`deleting ${slug} drops all its data and cannot be undone; run again with --yes-delete-everything (export it first?)`);
      }
      await admin(c).delete(slug, progress);
      out(`${slug} deleted`);
    }),
  );

program.parseAsync(process.argv);
