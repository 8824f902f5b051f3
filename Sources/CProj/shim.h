// GeographicLib's C geodesic routines (Karney 2013) as shipped inside PROJ, and PROJ's version.
#include <geodesic.h>
#include <proj.h>
