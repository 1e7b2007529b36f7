import { z } from 'zod';
import { COMPETENCE_TYPE_IDS } from '../../catalogue';

const changedAt = z.string().describe('ISO 8601 date-time: when the change was made');
const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .nullable()
  .describe('YYYY-MM-DD');

/** Type=personcompetences: a registration made in the period (history rows too). */
const RegistrationChange = z
  .object({
    personcompetence_id: z.number().int(),
    competence_id: z.number().int(),
    title: z.string(),
    type: z.enum(COMPETENCE_TYPE_IDS),
    user_name: z.string(),
    passed: z.number().int(),
    date: calendarDate,
    valid_until: calendarDate,
    checked: z.boolean().nullable(),
    signed: z.boolean().nullable(),
    override: z.boolean(),
    registered_by: z.string().nullable().describe('user name of whoever registered it'),
    current: z.boolean().describe('still the current registration (not superseded, not deleted)'),
    deleted: z.literal(false),
    changed_at: changedAt,
  })
  .meta({ id: 'RegistrationChange' });

/** Type=personcompetences: one per deletion of a person's registrations of a competence. */
const RegistrationDeletion = z
  .object({
    competence_id: z.number().int(),
    title: z.string(),
    type: z.enum(COMPETENCE_TYPE_IDS),
    user_name: z.string(),
    deleted: z.literal(true),
    changed_at: changedAt,
  })
  .meta({ id: 'RegistrationDeletion' });

/** Type=competences: a competence updated in the period. */
const CompetenceChange = z
  .object({
    competence_id: z.number().int(),
    title: z.string(),
    type: z.enum(COMPETENCE_TYPE_IDS),
    active: z.boolean(),
    parent_id: z.number().int().nullable(),
    competence_group_id: z.number().int().nullable(),
    deleted: z.literal(false),
    changed_at: changedAt,
  })
  .meta({ id: 'CompetenceChange' });

/** Type=competences: a competence deleted in the period (one per competence, those inside a deleted one too). */
const CompetenceDeletion = z
  .object({
    competence_id: z.number().int(),
    title: z.string(),
    type: z.enum(COMPETENCE_TYPE_IDS),
    deleted: z.literal(true),
    changed_at: changedAt,
  })
  .meta({ id: 'CompetenceDeletion' });

/** Type=events: an event updated since startdate. */
const EventChange = z
  .object({
    event_id: z.number().int(),
    title: z.string(),
    competence_id: z.number().int(),
    parent_id: z.number().int().nullable(),
    starts_at: z.string().describe('ISO 8601 date-time'),
    ends_at: z.string().describe('ISO 8601 date-time'),
    cancelled: z.boolean(),
    locked: z.boolean(),
    deleted: z.literal(false),
    changed_at: changedAt,
  })
  .meta({ id: 'EventChange' });

/** Type=events: an event deleted since startdate (its tombstone; never with organisation_id: a deleted event had no sign-on). */
const EventDeletion = z
  .object({
    event_id: z.number().int(),
    title: z.string(),
    competence_id: z.number().int(),
    parent_id: z.number().int().nullable(),
    starts_at: z.string().describe('ISO 8601 date-time'),
    ends_at: z.string().describe('ISO 8601 date-time'),
    deleted: z.literal(true),
    changed_at: changedAt,
  })
  .meta({ id: 'EventDeletion' });

/** One changed object; which shapes appear follows `Type`. */
export const ChangeView = z
  .union([RegistrationChange, RegistrationDeletion, CompetenceChange, CompetenceDeletion, EventChange, EventDeletion])
  .meta({ id: 'Change' });
