import { z } from 'zod';
import type { ViewName } from '../../platform/http/param-types';
import { isoDateTime } from '../events/event.presenter';
import type { SurveyData } from './survey-data.schema';

/** A survey_answers row. */
export interface StoredAnswer {
  id: number;
  survey_id: number;
  person_id: number | null;
  organisation_id: number | null;
  data: SurveyData;
  locked: boolean;
  locked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** An answer as its views and access rules need it: with the survey (the catalogue's) and the answering person (people's), read by a flow. */
export interface AnswerRow extends StoredAnswer {
  survey_title: string;
  owner_id: number | null;
  instructor_id: number | null;
  user_name: string | null;
  person_organisation_id: number | null;
}

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** One stored item; uploaded file_data has been replaced by the stored file's file_id. */
export const SurveyAnswerItemView: z.ZodType<unknown> = z
  .lazy(() =>
    z.object({
      competence_id: z.number().int().describe('the question (a competence below the survey)'),
      value: z.union([scalar, z.array(scalar)]).optional(),
      file_id: z.number().int().optional().describe('stored file of this item; the bytes are at GET /api/files/[file_id]/content'),
      file_name: z.string().optional(),
      file_title: z.string().optional(),
      children: z.array(SurveyAnswerItemView).optional().describe('answers to the sub-questions of this question'),
    }),
  )
  .meta({ id: 'SurveyAnswerItem' });

export const SurveyAnswerView = z
  .object({
    surveyanswer_id: z.number().int(),
    survey_id: z.number().int().describe('the survey competence'),
    survey_title: z.string(),
    person_id: z.number().int().nullable().describe('the answering person; null when an organisation answered'),
    user_name: z.string().nullable(),
    organisation_id: z.number().int().nullable().describe('the answering organisation; null when a person answered'),
    locked: z.boolean().describe('a locked answer refuses PUT (errorcode 409)'),
    locked_at: isoDateTime().nullable(),
    created_at: isoDateTime(),
    updated_at: isoDateTime(),
    items: z.array(SurveyAnswerItemView).optional().describe("full view only: the answers, nested as the survey's questions"),
  })
  .meta({ id: 'SurveyAnswer' });

export function presentAnswer(r: AnswerRow, view: ViewName): Record<string, unknown> {
  const out: Record<string, unknown> = {
    surveyanswer_id: r.id,
    survey_id: r.survey_id,
    survey_title: r.survey_title,
    person_id: r.person_id,
    user_name: r.user_name,
    organisation_id: r.organisation_id,
    locked: r.locked,
    locked_at: r.locked_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
  if (view === 'full') out.items = r.data.items;
  return out;
}
