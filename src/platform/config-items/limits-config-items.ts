import { z } from 'zod';
import { define } from './config-item-define';

const MIB = 1024 * 1024;

/**
 * Bounds on what one tenant or person may keep (issue 40): webhook endpoints and uploaded files.
 * Each has a default and a maximum a tenant admin cannot go past; CONFIG_ITEMS lists them.
 */
export const LIMIT_CONFIG_ITEMS = [
  define({
    id: 'webhooks.max_endpoints',
    section: 'integrations',
    description: 'Most webhook endpoints this tenant may register (1 to 100); POST /api/webhooks past it is a 409.',
    type: 'int_or_null',
    schema: z.number().int().min(1).max(100),
    default: 20,
    secret: false,
    readable: true,
  }),
  define({
    id: 'files.max_per_person',
    section: 'courses',
    description: 'Most uploaded files one person may own (POST /api/files, survey answers with a file); past it 413.',
    type: 'int_or_null',
    schema: z.number().int().min(0).max(100_000),
    default: 200,
    secret: false,
    readable: true,
  }),
  define({
    id: 'files.max_bytes_per_person',
    section: 'courses',
    description: `Most bytes of uploaded files one person may own (default 200 MiB = ${200 * MIB}); past it 413.`,
    type: 'int_or_null',
    schema: z
      .number()
      .int()
      .min(0)
      .max(100 * 1024 * MIB),
    default: 200 * MIB,
    secret: false,
    readable: true,
  }),
  define({
    id: 'files.max_per_tenant',
    section: 'courses',
    description: 'Most uploaded files the whole tenant may keep; past it 413.',
    type: 'int_or_null',
    schema: z.number().int().min(0).max(10_000_000),
    default: 50_000,
    secret: false,
    readable: true,
  }),
  define({
    id: 'files.max_bytes_per_tenant',
    section: 'courses',
    description: `Most bytes of uploaded files the whole tenant may keep (default 10 GiB = ${10 * 1024 * MIB}); past it 413. Keep DATA_DIR/files on a volume of its own.`,
    type: 'int_or_null',
    schema: z
      .number()
      .int()
      .min(0)
      .max(10 * 1024 * 1024 * MIB),
    default: 10 * 1024 * MIB,
    secret: false,
    readable: true,
  }),
] as const;
