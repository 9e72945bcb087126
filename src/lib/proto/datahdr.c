#include "proto/datahdr.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

bool datahdr_is_data(const uint8_t first4[4])
{
    return memcmp(first4, DATAHDR_MAGIC, 4) == 0;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void datahdr_encode(const struct datahdr *h, uint8_t out[DATAHDR_LEN])
{
    memcpy(out, DATAHDR_MAGIC, 4);
    memcpy(out + 4, h->cookie, TEST_COOKIE_LEN);
    put32(out + 4 + TEST_COOKIE_LEN, h->stream);
    put32(out + 8 + TEST_COOKIE_LEN, h->server_sends ? 1 : 0);
}

int datahdr_decode(const uint8_t in[DATAHDR_LEN], struct datahdr *h)
{
    if (!datahdr_is_data(in))
        return -EPROTO;
    uint32_t dir = get32(in + 8 + TEST_COOKIE_LEN);
    if (dir > 1)
        return -EPROTO;
    memcpy(h->cookie, in + 4, TEST_COOKIE_LEN);
    h->stream = get32(in + 4 + TEST_COOKIE_LEN);
    h->server_sends = dir == 1;
    return 0;
}

void datahdr_cookie_to_hex(const uint8_t cookie[TEST_COOKIE_LEN], char hex[33])
{
    for (int i = 0; i < TEST_COOKIE_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", cookie[i]);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int datahdr_cookie_from_hex(const char *hex, uint8_t cookie[TEST_COOKIE_LEN])
{
    if (!hex || strlen(hex) != 2 * TEST_COOKIE_LEN)
        return -EINVAL;
    for (int i = 0; i < TEST_COOKIE_LEN; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -EINVAL;
        cookie[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

int datahdr_cookie_new(uint8_t cookie[TEST_COOKIE_LEN])
{
    ssize_t n = getrandom(cookie, TEST_COOKIE_LEN, 0);
    return n == TEST_COOKIE_LEN ? 0 : -EIO;
}
