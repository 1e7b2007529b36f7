import { startTracing } from './start-tracing';

/** The API process's first import (src/api.ts, src/main.ts): tracing before anything else loads. */
startTracing('api');
