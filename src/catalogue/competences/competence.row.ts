/** A competences row as the repository returns it. */
export interface CompetenceRow {
  id: number;
  parent_id: number | null;
  title: string;
  description: string | null;
  type: string;
  active: boolean;
  valid_months: number | null;
  /** 0-100: a result at or above it passes (PUT /api/participants); null = 100. */
  pass_mark?: number | null;
  competence_group_id: number | null;
  owner_id: number | null;
  instructor_id: number | null;
  checked_by: string | null;
  lms_start_url: string | null;
  custom_attributes: Record<string, unknown>;
  sort_order: number;
  created_at: Date;
  updated_at: Date;
}
