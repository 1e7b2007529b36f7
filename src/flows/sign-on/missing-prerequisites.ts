import { eventPrerequisites, type MissingPrerequisitesQuery } from '../../courses';
import { heldRegistrations, joinCompetences } from '../../catalogue';

/**
 * check_join's prerequisites: those of the event (courses, ep) of which the person holds no
 * registration on `today` (catalogue, pc), with their titles (catalogue, c). Courses runs it as a
 * sub-query of the one statement a sign-on reads its facts with; only this flow knows both sides.
 */
export const missingPrerequisites: MissingPrerequisitesQuery = (db, eventId, personId, today) =>
  joinCompetences(eventPrerequisites(db, eventId), 'c', 'ep.competence_id')
    .whereNotExists(
      // held, as everywhere: a failed attempt (passed 0) is registered but does not qualify
      heldRegistrations(db, today).whereRaw('pc.competence_id = ep.competence_id').where('pc.person_id', personId),
    )
    .orderBy('c.title')
    .select('c.id', 'c.title');
