/* urdf_maximal.h: the body-and-joint ("maximal") URDF import the tests import_urdf and import_urdf_options cover;
 * the default is one articulation (test_import_urdf_artic). */
#ifndef MO_TEST_URDF_MAXIMAL_H
#define MO_TEST_URDF_MAXIMAL_H

#include "moreau/import.h"

static inline mo_urdf_options maximal_urdf_options(void)
{
    mo_urdf_options o = mo_default_urdf_options();
    o.articulation = false;
    return o;
}

/* a pointer to maximal_urdf_options() (one static copy per test, refreshed at each call) */
static inline const mo_urdf_options *maximal(void)
{
    static mo_urdf_options o;
    o = maximal_urdf_options();
    return &o;
}

#endif
