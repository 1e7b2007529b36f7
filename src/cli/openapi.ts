import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { routeGroups, openApiExtra } from '../routes';
import { apiDocumentText } from '../platform/openapi/docs-routes';
import { version } from '../../package.json';

/** Where `npm run openapi` writes the document unless told otherwise (not committed: .gitignore). */
export const OPENAPI_FILE = 'test/contract/generated/openapi.json';

/**
 * `npm run openapi [-- --out file]`: the OpenAPI 3.1 document every deployment serves at
 * /api/openapi.json, written to a file without a database, Redis or a running server, for linting
 * and for generating clients (README "Generating a client").
 */
const program = new Command('openapi')
  .description('Write the OpenAPI 3.1 document of the API (the same as GET /api/openapi.json) to a file')
  .option('-o, --out <file>', 'where to write it', OPENAPI_FILE)
  .action((options: { out: string }) => {
    const file = resolve(options.out);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, apiDocumentText(routeGroups, version, openApiExtra));
    process.stderr.write(`OpenAPI document written to ${options.out}\n`);
  });

program.parse(process.argv);
