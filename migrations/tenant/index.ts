import type { Migration } from '../../src/platform/migrations/migration-runner';
import * as m001 from './001_core';
import * as m020 from './020_messages';
import * as m030 from './030_competences';
import * as m040 from './040_surveys_files';
import * as m050 from './050_outbox_pending_index';
import * as m060 from './060_persons_name_order_index';
import * as m070 from './070_principal_change_notify';
import * as m080 from './080_security_audit';
import * as m085 from './085_role_admins_superadmin';
import * as m090 from './090_pending_passwords_per_delivery';
import * as m100 from './100_expiry_reminders';
import * as m110 from './110_webhooks';
import * as m120 from './120_outbox_notify';
import * as m130 from './130_tenant_data_notify';
import * as m140 from './140_webhook_notify';
import * as m150 from './150_outbox_priority';
import * as m160 from './160_webhook_relay_ranges';
import * as m170 from './170_catalogue_authoring';
import * as m180 from './180_calendar_authoring';
import * as m190 from './190_results';
import * as m220 from './220_imports';

/** Tenant migrations in order. Names are permanent: never rename or reorder. */
export const tenantMigrations: Migration[] = [
  { name: '001_core', up: m001.up },
  { name: '020_messages', up: m020.up },
  { name: '030_competences', up: m030.up },
  { name: '040_surveys_files', up: m040.up },
  { name: '050_outbox_pending_index', up: m050.up },
  { name: '060_persons_name_order_index', up: m060.up },
  { name: '070_principal_change_notify', up: m070.up },
  { name: '080_security_audit', up: m080.up },
  { name: '085_role_admins_superadmin', up: m085.up },
  { name: '090_pending_passwords_per_delivery', up: m090.up },
  { name: '100_expiry_reminders', up: m100.up },
  { name: '110_webhooks', up: m110.up },
  { name: '120_outbox_notify', up: m120.up },
  { name: '130_tenant_data_notify', up: m130.up },
  { name: '140_webhook_notify', up: m140.up },
  { name: '150_outbox_priority', up: m150.up },
  { name: '160_webhook_relay_ranges', up: m160.up },
  { name: '170_catalogue_authoring', up: m170.up },
  { name: '180_calendar_authoring', up: m180.up },
  { name: '190_results', up: m190.up },
  { name: '220_imports', up: m220.up },
];
