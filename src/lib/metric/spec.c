/* Reading the experiment spec document (spec.h). */
#include "metric/spec.h"

#include <string.h>

json_t *spec_parse(const char *spec_json)
{
    return spec_json ? json_loads(spec_json, 0, NULL) : NULL;
}

static const json_t *variant(const json_t *spec, size_t i)
{
    return json_array_get(json_object_get(spec, SPEC_VARIANTS), i);
}

size_t spec_variant_count(const json_t *spec)
{
    return json_array_size(json_object_get(spec, SPEC_VARIANTS));
}

const char *spec_variant_name(const json_t *spec, size_t i)
{
    return json_string_value(json_object_get(variant(spec, i), SPEC_NAME));
}

const char *spec_variant_layout(const json_t *spec, size_t i)
{
    return json_string_value(json_object_get(variant(spec, i), SPEC_LAYOUT));
}

static const json_t *layout_hot(const json_t *spec)
{
    return json_object_get(json_object_get(spec, SPEC_LAYOUT), SPEC_LAYOUT_HOT);
}

size_t spec_layout_hot_count(const json_t *spec)
{
    return json_array_size(layout_hot(spec));
}

const char *spec_layout_hot(const json_t *spec, size_t i)
{
    return json_string_value(json_array_get(layout_hot(spec), i));
}

bool spec_order_blocked(const json_t *spec)
{
    const char *order = json_string_value(json_object_get(spec, SPEC_ORDER));
    return order && !strcmp(order, SPEC_BLOCKED);
}

size_t spec_dut_count(const json_t *spec)
{
    return json_array_size(json_object_get(spec, SPEC_DUTS));
}

const char *spec_dut_name(const json_t *spec, size_t i)
{
    return json_string_value(
        json_object_get(json_array_get(json_object_get(spec, SPEC_DUTS), i), SPEC_NAME));
}

bool spec_parallel_duts(const json_t *spec)
{
    const char *p = json_string_value(json_object_get(spec, SPEC_PARALLEL));
    return p && !strcmp(p, SPEC_PARALLEL_DUTS);
}

size_t spec_factor_count(const json_t *spec)
{
    return json_array_size(json_object_get(spec, SPEC_FACTORS));
}

const char *spec_factor_name(const json_t *spec, size_t i)
{
    return json_string_value(json_array_get(json_object_get(spec, SPEC_FACTORS), i));
}

const char *spec_variant_level(const json_t *spec, size_t v, const char *factor)
{
    return factor ? json_string_value(
                        json_object_get(json_object_get(variant(spec, v), SPEC_FACTORS), factor))
                  : NULL;
}

static const json_t *axis(const json_t *spec, size_t a)
{
    return json_array_get(json_object_get(spec, SPEC_MATRIX), a);
}

size_t spec_axis_count(const json_t *spec)
{
    return json_array_size(json_object_get(spec, SPEC_MATRIX));
}

const char *spec_axis_key(const json_t *spec, size_t a)
{
    return json_string_value(json_object_get(axis(spec, a), SPEC_KEY));
}

size_t spec_axis_size(const json_t *spec, size_t a)
{
    return json_array_size(json_object_get(axis(spec, a), SPEC_VALUES));
}

const json_t *spec_axis_value(const json_t *spec, size_t a, size_t i)
{
    return json_array_get(json_object_get(axis(spec, a), SPEC_VALUES), i);
}

const char *spec_report_cell(const json_t *spec)
{
    return json_string_value(json_object_get(json_object_get(spec, SPEC_REPORT), SPEC_REPORT_CELL));
}

const char *spec_report_columns(const json_t *spec)
{
    return json_string_value(
        json_object_get(json_object_get(spec, SPEC_REPORT), SPEC_REPORT_COLUMNS));
}
