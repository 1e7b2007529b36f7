import 'reflect-metadata';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { Command } from 'commander';
import type { DependencyContainer } from 'tsyringe';
import { ARCHIVE_FORMAT, TenantAdminService, TenantOperator, type TenantSummary } from '../tenancy';
import { OperatorPasswordsFlow } from '../flows';
import { CliError, LOCAL_SERVICES_HINT, progress, runWithContainer } from './cli-runtime';
import { registerPlacementCommands } from './tenant-placement-commands';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const admin = (c: DependencyContainer) => c.resolve(TenantAdminService);
const CLI = { via: 'cli' } as const;
const operator = (c: DependencyContainer) => new TenantOperator(c, CLI);
const passwords = (c: DependencyContainer) => c.resolve(OperatorPasswordsFlow);
const out = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

// a tenant whose migration failed answers 503: the operator must see it in every listing
const state = (t: TenantSummary) => (t.migration_failed_at ? `${t.status}, migration failed` : t.status);

function describe(t: TenantSummary): string {
  return `${t.slug}  "${t.name}"  ${state(t)}  hosts: ${t.hosts.join(', ')}  cluster ${t.cluster}  schema ${t.schema} @ ${t.schema_version ?? '-'}  ${mib(t.schema_size_bytes)}`;
}

function table(rows: TenantSummary[]): string {
  const head = ['SLUG', 'NAME', 'STATUS', 'HOSTS', 'CLUSTER', 'SCHEMA VERSION', 'SIZE'];
  const cells = rows.map((t) => [t.slug, t.name, state(t), t.hosts.join(','), t.cluster, t.schema_version ?? '-', mib(t.schema_size_bytes)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  return [head, ...cells]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A gzip stream (archive) or a JSON document, told apart by gzip's magic bytes. */
async function openInput(file: string): Promise<{ archive?: Readable; document?: unknown }> {
  let stream: Readable;
  let head: Buffer;
  try {
    stream = file === '-' ? process.stdin : fs.createReadStream(file);
    head = await new Promise<Buffer>((resolve, reject) => {
      stream.once('error', reject);
      stream.once('readable', () => resolve((stream.read() as Buffer | null) ?? Buffer.alloc(0)));
    });
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
  stream.unshift(head);
  if (head[0] === 0x1f && head[1] === 0x8b) return { archive: stream };
  try {
    return { document: JSON.parse((await text(stream)).toString()) };
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

const program = new Command('tenant')
  .description('Operate tenants: create, import, export, hosts, list, suspend/resume, delete')
  .addHelpText('after', `\n${LOCAL_SERVICES_HINT}\nThe same operations are available over HTTP under /platform (see src/tenancy/tenants/README.md).\n`)
  .showHelpAfterError();

program
  .command('create')
  .description('Create an empty tenant with its schema migrated; with --admin-user and --admin-email also its first superuser, who is mailed a password')
  .argument('<slug>', 'lowercase letters, digits and -, starting with a letter (also names the schema t_<slug>)')
  .requiredOption('--name <name>', 'display name')
  .requiredOption('--host <host>', 'a host name the tenant answers on (repeat for more)', collect)
  .option('--admin-user <user_name>', "the first superuser's user name (in a root organisation named after the tenant)")
  .option('--admin-email <email>', "where the first superuser's password is mailed (the outbox and workers send it)")
  .option('--mail-from <sender>', "the tenant's sender address (config item mail.from); required with --admin-user unless MAIL_FROM is set")
  .option('--admin-firstname <name>')
  .option('--admin-lastname <name>')
  .option('--cluster <name>', 'the PostgreSQL cluster for its schema (default: the one with the fewest tenants)')
  .action(
    (
      slug: string,
      o: {
        name: string;
        host: string[];
        adminUser?: string;
        adminEmail?: string;
        adminFirstname?: string;
        adminLastname?: string;
        mailFrom?: string;
        cluster?: string;
      },
    ) =>
      runWithContainer(async (c) => {
        const input = { slug, name: o.name, hosts: o.host, cluster: o.cluster };
        if (!o.adminUser && !o.adminEmail) return out(describe(await admin(c).create(input, progress)));
        if (!o.adminUser || !o.adminEmail) throw new CliError('--admin-user and --admin-email go together');
        const first = { user_name: o.adminUser, email: o.adminEmail, firstname: o.adminFirstname, lastname: o.adminLastname };
        out(describe(await passwords(c).createWithAdmin(CLI, { ...input, mailFrom: o.mailFrom }, first, progress)));
        progress(`${slug}: a password was queued for ${o.adminUser} <${o.adminEmail}>; they must choose their own at first login`);
      }),
  );

const config = program.command('config').description("Read or set a tenant's config items (secrets are shown as set / not set only)");
config
  .command('get')
  .description('Print every config item of the tenant, or one')
  .argument('<slug>')
  .argument('[id]')
  .action((slug: string, id?: string) =>
    runWithContainer(async (c) => {
      const items = (await operator(c).configItems(slug)) as Array<{ config_item_id: string }>;
      const chosen = id ? items.filter((i) => i.config_item_id === id) : items;
      if (id && !chosen.length) throw new CliError(`config item ${id} not found`);
      out(JSON.stringify(id ? chosen[0] : chosen, null, 2));
    }),
  );
config
  .command('set')
  .description("Set a config item, validated like the tenant admin's PUT; audited as operator and applied at once by every process")
  .argument('<slug>')
  .argument('<id>')
  .argument('<value>', 'as in the admin form: JSON for numbers, booleans, lists and null; plain text for strings and enums; "" clears a nullable item')
  .action((slug: string, id: string, value: string) =>
    runWithContainer(async (c) => out(JSON.stringify(await operator(c).setConfigItem(slug, id, value), null, 2))),
  );

program
  .command('reset-password')
  .description('Mail a person of the tenant a new password (they must choose their own at login); audited as operator')
  .argument('<slug>')
  .argument('<user_name>')
  .action((slug: string, userName: string) =>
    runWithContainer(async (c) => {
      await passwords(c).resetPassword(CLI, slug, userName);
      out(`${slug}: a new password was queued for ${userName}`);
    }),
  );

program
  .command('import')
  .description('Create a tenant from a tenant-archive/1 (.tar.gz, as export writes) or a tenant-import/1 JSON document; one transaction: all or nothing')
  .argument('<file>', 'the archive or JSON document ("-" reads stdin)')
  .option('--slug <slug>', "use this slug instead of the export's")
  .option('--host <host>', "use these hosts instead of the export's (repeat for more)", collect)
  .option('--cluster <name>', 'the PostgreSQL cluster for its schema (default: the one with the fewest tenants)')
  .action((file: string, o: { slug?: string; host?: string[]; cluster?: string }) =>
    runWithContainer(async (c) => {
      const input = await openInput(file);
      progress(`importing ${file}`);
      const options = { slug: o.slug, hosts: o.host, cluster: o.cluster, onProgress: progress };
      const t = input.archive ? await admin(c).importArchive(input.archive, options) : await admin(c).import(input.document, options);
      out(describe(t));
    }),
  );

program
  .command('export')
  .description(
    "Write everything of a tenant as a tenant-archive/1 (gzip'd tar: every table, files, config and its history), or the older tenant-import/1 JSON document",
  )
  .argument('<slug>')
  .option('--out <file>', 'write to this file (mode 600) instead of stdout')
  .option('--format <format>', `${ARCHIVE_FORMAT} or tenant-import/1`, ARCHIVE_FORMAT)
  .option('--no-secrets', 'leave secret config items (api.oauth.secret) out')
  .option('--no-password-hashes', 'archive only: blank the password hashes (the restored tenant then needs new passwords)')
  .action((slug: string, o: { out?: string; format: string; secrets: boolean; passwordHashes: boolean }) =>
    runWithContainer(async (c) => {
      if (o.format !== ARCHIVE_FORMAT && o.format !== 'tenant-import/1') throw new CliError(`--format must be ${ARCHIVE_FORMAT} or tenant-import/1`);
      if (o.format === ARCHIVE_FORMAT) {
        if (!o.out && process.stdout.isTTY) throw new CliError('the archive is binary: give --out <file> or redirect stdout');
        // Holds password hashes (and secrets): readable by the owner only.
        const target = o.out ? fs.createWriteStream(o.out, { mode: 0o600 }) : process.stdout;
        const end = await admin(c).exportArchive(slug, target, { secrets: o.secrets, passwordHashes: o.passwordHashes, onProgress: progress });
        const rows = Object.values(end.tables).reduce((a, b) => a + b, 0);
        progress(`${slug}: ${Object.keys(end.tables).length} tables, ${rows} rows, ${end.files} files written${o.out ? ` to ${o.out}` : ''}`);
        return;
      }
      const doc = await admin(c).export(slug, { secrets: o.secrets });
      const text = `${JSON.stringify(doc, null, 2)}\n`;
      if (o.out) {
        fs.writeFileSync(o.out, text, { mode: 0o600 });
        progress(
          `${slug}: ${doc.persons.length} persons, ${doc.competences.length} top-level competences, ${doc.events.length} top-level events written to ${o.out}`,
        );
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
  .description('List tenants with status, hosts, cluster, schema version and size')
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
  .description('Delete a tenant for good: drops its schema, platform rows, Redis keys (sessions, ...) and queued jobs')
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

registerPlacementCommands(program);

// an error rejects the promise: Node prints it and exits 1, as a CLI should
void program.parseAsync(process.argv);
