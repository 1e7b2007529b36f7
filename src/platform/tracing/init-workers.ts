import { startTracing } from './start-tracing';

/** The worker process's first import (workers/main.ts): tracing before anything else loads. */
startTracing('workers');
