/*
 * The random bytes that name one test. The server hands them to the client
 * when it accepts a test, every data connection starts with them (proto's
 * data header, datahdr.h) and every UDP registration datagram carries them
 * (engine's udp_wire.h). The length lives here, in the engine, because the
 * control protocol may include engine headers but the engine never
 * includes proto's.
 */
#ifndef NETAB_ENGINE_TEST_COOKIE_H
#define NETAB_ENGINE_TEST_COOKIE_H

#define TEST_COOKIE_LEN 16

#endif
