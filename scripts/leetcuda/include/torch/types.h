#pragma once
#include "extension.h"
